-- view_ub_moments: one developer's ($1) scorable moments under simulator
-- $2 and condition $3, from ub_view_moments (view_ub_warm), one row per
-- point and trial (a point without a generation: one row, trial NULL):
-- the point, its real message and move, the generation's text and move
-- ('' when unlabelled or missing), failed, and hit. Filters: real move
-- $4, generated move $5 ('' either: any), outcome $6 ('hit', 'miss' or
-- '': any). One page: $7 rows from offset $8, by point and trial, with the
-- number of rows that pass the filters in the last column; the texts are
-- read for the page's rows only.
WITH page AS (
    SELECT point_id, trial, real_move, generated, failed, hit, count(*) OVER () AS total
    FROM ub_view_moments
    WHERE simulator = $2 AND condition = $3 AND developer = $1
      AND ($4 = '' OR real_move = $4)
      AND ($5 = '' OR generated = $5)
      AND ($6 = '' OR ($6 = 'hit') = hit)
    ORDER BY point_id, trial NULLS FIRST
    LIMIT $7 OFFSET $8
)
SELECT pg.point_id, pg.trial, pg.real_move, coalesce(t.text, '') AS real_text, pg.generated,
       coalesce((SELECT g.text FROM generations g
                 WHERE g.point_id = pg.point_id AND g.simulator = $2 AND g.condition = $3
                   AND g.window_n = $9 AND g.history_k = $10 AND coalesce(g.trial, 0) = pg.trial), '') AS text,
       pg.failed, pg.hit, pg.total
FROM page pg
JOIN points p ON p.id = pg.point_id
LEFT JOIN turns t ON t.session_id = p.session_id AND t.idx = p.turn_idx
ORDER BY pg.point_id, pg.trial NULLS FIRST
