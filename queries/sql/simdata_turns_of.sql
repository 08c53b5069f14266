-- simdata_turns_of: simdata_turns of each point $1 names (a JSON array of
-- point ids): its session's turns up to and including its turn, by point,
-- then turn.
WITH p AS (
    -- one row a point, as simdata_point reads it, should an id be stored
    -- twice
    SELECT id, session_id, turn_idx
    FROM points
    WHERE id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY session_id, turn_idx) = 1
)
SELECT p.id, t.idx, t.role, t.text, t.is_command
FROM p
JOIN turns t ON t.session_id = p.session_id AND t.idx <= p.turn_idx
ORDER BY p.id, t.idx
