-- view_ub_moments: one developer's ($2) scorable moments under simulator
-- $3, condition $4, live window $5 and history $6, as judge $1 scored
-- them, one row per point and trial (a point without a generation: one
-- row, trial NULL): the point, its real message and move, the generation's
-- text and move ('' when unlabelled or missing), failed, and hit. Filters:
-- real move $7, generated move $8 ('' either: any), outcome $9 ('hit',
-- 'miss' or '': any). One page: $10 rows from offset $11, with the number
-- of rows that pass the filters in the last column.
WITH pts AS (
    SELECT p.id, p.session_id, p.turn_idx, l.move AS real_move
    FROM points p
    JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
    WHERE p.developer = $2 AND l.move <> 'unparseable'
),
gens AS (
    SELECT g.point_id, coalesce(g.trial, 0) AS trial, coalesce(g.text, '') AS text,
           g.error IS NOT NULL OR g.text IS NULL AS failed, coalesce(lg.move, '') AS move
    FROM generations g
    LEFT JOIN labels lg ON lg.target = 'generation' AND lg.target_id = g.id AND lg.judge = $1
    WHERE g.simulator = $3 AND g.condition = $4 AND g.window_n = $5 AND g.history_k = $6
      AND g.point_id IN (SELECT id FROM pts)
),
rows AS (
    SELECT p.id, g.trial, p.real_move, coalesce(t.text, '') AS real_text,
           coalesce(g.move, '') AS generated, coalesce(g.text, '') AS text,
           coalesce(g.failed, true) AS failed,
           coalesce(NOT g.failed AND g.move = p.real_move, false) AS hit
    FROM pts p
    LEFT JOIN gens g ON g.point_id = p.id
    LEFT JOIN turns t ON t.session_id = p.session_id AND t.idx = p.turn_idx
)
SELECT id, trial, real_move, real_text, generated, text, failed, hit, count(*) OVER () AS total
FROM rows
WHERE ($7 = '' OR real_move = $7)
  AND ($8 = '' OR generated = $8)
  AND ($9 = '' OR ($9 = 'hit') = hit)
ORDER BY id, trial NULLS FIRST
LIMIT $10 OFFSET $11
