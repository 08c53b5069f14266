-- The turn a full-duplex review's tick span lands on: the first user
-- message built from a tick in the span, else the first message of any role.
SELECT turn_idx FROM ep_messages
WHERE simulation_id = ? AND tick_id BETWEEN ? AND ?
ORDER BY CASE WHEN role = 'user' THEN 0 ELSE 1 END, idx
LIMIT 1
