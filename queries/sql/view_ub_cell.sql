-- view_ub_cell: the moments of one setting of a sweep (simulator $1,
-- condition $2, live window $3, history $4) as ViewWarm's judge scored them, the
-- constant-dose points only when $5: one row per scorable point and
-- generation (a point without a generation in the setting once, trial
-- NULL), with the developer, the real move, the generation's move (''
-- when missing), failed (an error, no text, or missing) and hit. A
-- generation the judge has not labelled is not a moment (study_scores).
-- One page: $6 rows from offset $7, by developer, point and trial, with
-- the number of rows in the last column. Reads the generations of the
-- one setting from ub_view_cells (view_ub_warm_cells).
WITH pts AS (
    SELECT p.point_id AS id, p.developer, p.move AS real_move
    FROM ub_view_points p
    JOIN points pp ON pp.id = p.point_id
    WHERE p.labelled AND p.move <> 'unparseable' AND (NOT $5 OR pp.constant_dose)
),
gens AS (
    SELECT g.point_id, g.trial, g.failed, g.move
    FROM ub_view_cells g
    WHERE g.simulator = $1 AND g.condition = $2 AND g.window_n = $3 AND g.history_k = $4
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
LIMIT $6 OFFSET $7
