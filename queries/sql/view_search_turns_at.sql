-- view_search_turns_at: the developer of each session $1 names (a JSON
-- array of session ids: those of a search page's hits in turns) and its
-- points (turn and id), by session, turn and id: what a hit in its turns
-- belongs to, the moment each turn leads to being the first point at or
-- after it. One row with a NULL point for a session that has none; no row
-- for one that is gone.
SELECT s.id, s.developer, p.turn_idx, p.id
FROM sessions s
LEFT JOIN points p ON p.session_id = s.id
WHERE s.id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY s.id, p.turn_idx, p.id
