-- view_ub_moments: one developer's ($1) scorable moments under simulator
-- $2 and condition $3, from ub_view_moments and ub_view_points
-- (view_ub_warm, view_ub_warm_points), one row per point and trial (a
-- point without a generation: one row, trial NULL): the point, its real
-- message and move, the generation's id (NULL when missing) and move (''
-- when unlabelled or missing), failed, and hit. Filters: real move $4,
-- generated move $5 ('' either: any), outcome $6 ('hit', 'miss' or '':
-- any). One page: $7 rows from offset $8, by point and trial, with the
-- number of rows that pass the filters in the last column.
WITH page AS (
    SELECT point_id, trial, real_move, generated, failed, hit, gen_id, count(*) OVER () AS total
    FROM ub_view_moments
    WHERE simulator = $2 AND condition = $3 AND developer = $1
      AND ($4 = '' OR real_move = $4)
      AND ($5 = '' OR generated = $5)
      AND ($6 = '' OR ($6 = 'hit') = hit)
    ORDER BY point_id, trial NULLS FIRST
    LIMIT $7 OFFSET $8
)
SELECT pg.point_id, pg.trial, pg.real_move, coalesce(p.real_text, '') AS real_text, pg.generated,
       pg.gen_id, pg.failed, pg.hit, pg.total
FROM page pg
LEFT JOIN ub_view_points p ON p.point_id = pg.point_id
ORDER BY pg.point_id, pg.trial NULLS FIRST
