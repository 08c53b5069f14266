-- view_search_messages: the tau2 episode messages at storage positions
-- (rowid) $2 up to $3 whose content holds $1 ignoring case (lower() of
-- both), with role $4 ('' any), at most $5, by position: one window of ub
-- view's search (view_search_messages_of narrows to a user simulator or
-- domain). What a hit belongs to is read for the page's hits only
-- (view_search_message_at).
SELECT m.rowid AS pos, m.simulation_id, m.idx, m.turn_idx, m.role, m.content
FROM ep_messages m
WHERE m.rowid >= $2 AND m.rowid < $3
  AND ($4 = '' OR m.role = $4)
  AND contains(lower(m.content), lower($1))
ORDER BY pos
LIMIT $5
