-- view_search_turns: the session turns at storage positions (rowid) $2 up
-- to $3 whose text holds $1 ignoring case (lower() of both), with role $4
-- and of developer $5 ('' each: any), at most $6, by position: one window
-- of ub view's search, so that a page reads a bounded slice of the table
-- whatever the workspace holds. What a hit belongs to is read for the
-- page's hits only (view_search_turn_at).
SELECT t.rowid AS pos, t.session_id, t.idx, t.role, t.text
FROM turns t
WHERE t.rowid >= $2 AND t.rowid < $3
  AND ($4 = '' OR t.role = $4)
  AND contains(lower(t.text), lower($1))
  AND ($5 = '' OR t.session_id IN (SELECT id FROM sessions WHERE developer = $5 AND $5 <> ''))
ORDER BY pos
LIMIT $6
