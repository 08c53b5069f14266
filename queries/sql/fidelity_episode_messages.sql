-- One episode's messages, in order.
SELECT turn_idx, role, coalesce(content, '')
FROM ep_messages
WHERE simulation_id = ?
ORDER BY idx
