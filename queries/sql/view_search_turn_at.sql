-- view_search_turn_at: the developer of session $1 and its points (turn
-- and id) by turn and id: what a hit in its turns belongs to, the moment
-- each turn leads to being the first point at or after it. One row with
-- a NULL point when the session has none; no row when it is gone.
SELECT s.developer, p.turn_idx, p.id
FROM sessions s
LEFT JOIN points p ON p.session_id = s.id
WHERE s.id = $1
ORDER BY p.turn_idx, p.id
