-- view_search_turns: the session turns at storage positions (rowid) $2 up
-- to $3 whose text holds $1 ignoring case (lower() of both), with role $4
-- and of developer $5 ('' each: any), at most $6, by position: one window
-- of ub view's search, so that a page reads a bounded slice of the table
-- whatever the workspace holds. Each with its developer and the moment it
-- leads to: the session's first point at or after the turn (its id ''
-- and turn -1 when the session has none there).
WITH hit AS (
    SELECT t.rowid AS pos, t.session_id, t.idx, t.role, t.text
    FROM turns t
    WHERE t.rowid >= $2 AND t.rowid < $3
      AND ($4 = '' OR t.role = $4)
      AND contains(lower(t.text), lower($1))
      AND ($5 = '' OR t.session_id IN (SELECT id FROM sessions WHERE developer = $5))
    ORDER BY pos
    LIMIT $6
)
SELECT h.pos, h.session_id, h.idx, h.role, h.text, coalesce(s.developer, ''),
       coalesce(p.id, ''), coalesce(p.turn_idx, -1)
FROM hit h
LEFT JOIN sessions s ON s.id = h.session_id
LEFT JOIN LATERAL (
    SELECT p.id, p.turn_idx FROM points p
    WHERE p.session_id = h.session_id AND p.turn_idx >= h.idx
    ORDER BY p.turn_idx, p.id
    LIMIT 1
) p ON true
ORDER BY h.pos
