-- view_search_messages_of: view_search_messages narrowed to the episodes
-- of user simulator $6 in domain $7 ('' each: any), read from the
-- episode list ub view wrote at start (view_fid_warm: sorted by user
-- simulator and domain, so a user simulator's episodes are read alone).
SELECT m.rowid AS pos, m.simulation_id, m.idx, m.turn_idx, m.role, m.content
FROM ep_messages m
WHERE m.rowid >= $2 AND m.rowid < $3
  AND ($4 = '' OR m.role = $4)
  AND contains(lower(m.content), lower($1))
  AND m.simulation_id IN (
      SELECT simulation_id FROM ub_view_episodes
      WHERE ($6 = '' OR user_sim = $6) AND ($7 = '' OR domain = $7))
ORDER BY pos
LIMIT $5
