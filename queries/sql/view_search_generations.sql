-- view_search_generations: the UserBench generations at storage positions
-- (rowid) $2 up to $3 whose text holds $1 ignoring case (lower() of both),
-- of simulator $4 and at a point of developer $5 ('' each: any), at most
-- $6, by position, each with its setting, trial and point: one window of
-- ub view's search. The point's developer is read for the page's hits
-- only (view_search_point_developer).
SELECT g.rowid AS pos, g.id, g.point_id, g.simulator, g.condition, g.window_n, g.history_k,
       coalesce(g.trial, 0) AS trial, g.text
FROM generations g
WHERE g.rowid >= $2 AND g.rowid < $3
  AND ($4 = '' OR g.simulator = $4)
  AND contains(lower(g.text), lower($1))
  AND ($5 = '' OR g.point_id IN (SELECT id FROM points WHERE developer = $5 AND $5 <> ''))
ORDER BY pos
LIMIT $6
