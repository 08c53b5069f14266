-- view_search_messages: the tau2 episode messages at storage positions
-- (rowid) $2 up to $3 whose content holds $1 ignoring case (lower() of
-- both), with role $4, of user simulator $5 and in domain $6 ('' each:
-- any), at most $7, by position: one window of ub view's search. Each with
-- its episode's user simulator, domain and task.
WITH hit AS (
    SELECT m.rowid AS pos, m.simulation_id, m.idx, m.turn_idx, m.role, m.content
    FROM ep_messages m
    WHERE m.rowid >= $2 AND m.rowid < $3
      AND ($4 = '' OR m.role = $4)
      AND contains(lower(m.content), lower($1))
      AND (($5 = '' AND $6 = '') OR m.simulation_id IN (
          SELECT e.simulation_id FROM ep_episodes e JOIN ep_runs r ON r.run_id = e.run_id
          WHERE ($5 = '' OR r.user_sim = $5) AND ($6 = '' OR e.domain = $6)))
    ORDER BY pos
    LIMIT $7
)
SELECT h.pos, h.simulation_id, h.idx, h.turn_idx, h.role, h.content,
       coalesce(r.user_sim, ''), coalesce(e.domain, ''), coalesce(e.task_id, '')
FROM hit h
LEFT JOIN ep_episodes e ON e.simulation_id = h.simulation_id
LEFT JOIN ep_runs r ON r.run_id = e.run_id
ORDER BY h.pos
