-- view_ub_moments: one developer's ($1) scorable moments under simulator
-- $2 and condition $3, from ub_view_moments and ub_view_points
-- (view_ub_warm, view_ub_warm_points), one row per point and trial (a
-- point without a generation: one row, trial NULL): the point, its real
-- message and move, the generation's id (NULL when missing) and move (''
-- when unlabelled or missing), failed, and hit. Filters: real move $4,
-- generated move $5 ('' either: any), outcome $6 ('hit', 'miss' or '':
-- any), profile lift $9 ('profile': the simulator's generation under
-- condition profile hit at the point and trial and its noprofile one
-- missed; 'noprofile': the reverse; '': any). One page: $7 rows from
-- offset $8, by point and trial, with the number of rows that pass the
-- filters in the last column.
WITH lift AS (
    -- the developer's points and trials where the simulator's profile
    -- generation hit and its noprofile one missed ($9 'profile'), or the
    -- reverse ($9 'noprofile'); the developer's rows only
    SELECT wp.point_id, wp.trial
    FROM ub_view_moments wp
    JOIN ub_view_moments wn ON wn.point_id = wp.point_id AND wn.trial IS NOT DISTINCT FROM wp.trial
    WHERE $9 <> '' AND wp.developer = $1 AND wp.simulator = $2 AND wn.developer = $1 AND wn.simulator = $2
      AND wp.condition = 'profile' AND wn.condition = 'noprofile'
      AND CASE $9 WHEN 'profile' THEN wp.hit AND NOT wn.hit ELSE wn.hit AND NOT wp.hit END
),
page AS (
    SELECT point_id, trial, real_move, generated, failed, hit, gen_id, count(*) OVER () AS total
    FROM ub_view_moments m
    WHERE simulator = $2 AND condition = $3 AND developer = $1
      AND ($4 = '' OR real_move = $4)
      AND ($5 = '' OR generated = $5)
      AND ($6 = '' OR ($6 = 'hit') = hit)
      AND ($9 = '' OR EXISTS (SELECT 1 FROM lift WHERE lift.point_id = m.point_id AND lift.trial IS NOT DISTINCT FROM m.trial))
    ORDER BY point_id, trial NULLS FIRST
    LIMIT $7 OFFSET $8
)
SELECT pg.point_id, pg.trial, pg.real_move, coalesce(p.real_text, '') AS real_text, pg.generated,
       pg.gen_id, pg.failed, pg.hit, pg.total
FROM page pg
LEFT JOIN ub_view_points p ON p.point_id = pg.point_id
ORDER BY pg.point_id, pg.trial NULLS FIRST
