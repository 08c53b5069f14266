-- view_ub_cell: the moments of one setting of a sweep (simulator $2,
-- condition $3, live window $4, history $5) as judge $1 scored them, the
-- constant-dose points only when $6: one row per scorable point and
-- generation (a point without a generation in the setting once, trial
-- NULL), with the developer, the real move, the generation's move (''
-- when missing), failed (an error, no text, or missing) and hit. A
-- generation the judge has not labelled is not a moment (study_scores).
-- One page: $7 rows from offset $8, by developer, point and trial, with
-- the number of rows in the last column. Reads the generations of the
-- one setting.
WITH pts AS (
    SELECT p.id, p.developer, l.move AS real_move
    FROM points p
    JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
    WHERE l.move <> 'unparseable' AND (NOT $6 OR p.constant_dose)
),
gens AS (
    SELECT g.point_id, coalesce(g.trial, 0) AS trial,
           g.error IS NOT NULL OR g.text IS NULL AS failed, lg.move
    FROM generations g
    LEFT JOIN labels lg ON lg.target = 'generation' AND lg.target_id = g.id AND lg.judge = $1
    WHERE g.simulator = $2 AND g.condition = $3 AND g.window_n = $4 AND g.history_k = $5
),
moments AS (
    SELECT p.developer, p.id AS point_id, g.trial, p.real_move, coalesce(g.move, '') AS generated,
           coalesce(g.failed, true) AS failed,
           coalesce(NOT g.failed AND g.move = p.real_move, false) AS hit
    FROM pts p
    LEFT JOIN gens g ON g.point_id = p.id
    WHERE g.point_id IS NULL OR g.failed OR g.move IS NOT NULL
)
SELECT developer, point_id, trial, real_move, generated, failed, hit, count(*) OVER () AS total
FROM moments
ORDER BY developer, point_id, trial NULLS FIRST
LIMIT $7 OFFSET $8
