-- simdata_turns_of: simdata_turns of each point $1 names (a JSON array of
-- point ids): its session's turns up to and including its turn, by point,
-- then turn.
SELECT p.id, t.idx, t.role, t.text, t.is_command
FROM points p
JOIN turns t ON t.session_id = p.session_id AND t.idx <= p.turn_idx
WHERE p.id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY p.id, t.idx
