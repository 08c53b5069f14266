-- view_ub_cell_developers: the hits and moments of each developer at one
-- setting of a sweep (simulator $1, condition $2, live window $3, history
-- $4) as ViewWarm's judge scored them, the constant-dose points only when $5,
-- counted as the report counts them (study_scores): a scorable point is
-- a moment in each of the setting's trials; a generation the judge
-- labelled or that failed is scored, a missing one is a miss, one the
-- judge has not labelled is not a moment. Every developer with a scorable
-- point, by developer. Reads ub_view_cells (view_ub_warm_cells).
WITH pts AS (
    SELECT p.point_id AS id, p.developer, p.move AS real_move
    FROM ub_view_points p
    JOIN points pp ON pp.id = p.point_id
    WHERE p.labelled AND p.move <> 'unparseable' AND (NOT $5 OR pp.constant_dose)
),
gens AS (
    SELECT g.point_id, g.failed, g.move
    FROM ub_view_cells g
    WHERE g.simulator = $1 AND g.condition = $2 AND g.window_n = $3 AND g.history_k = $4
),
st AS (
    SELECT (max(g.trial) + 1)::INTEGER AS trials
    FROM ub_view_cells g
    WHERE g.simulator = $1 AND g.condition = $2 AND g.window_n = $3 AND g.history_k = $4
),
devs AS (
    SELECT developer, count(*) AS points FROM pts GROUP BY developer
),
agg AS (
    SELECT p.developer,
           count(*) FILTER (WHERE NOT g.failed AND g.move = p.real_move) AS hits,
           count(*) FILTER (WHERE g.failed OR g.move IS NOT NULL) AS counted,
           count(*) AS present
    FROM pts p
    JOIN gens g ON g.point_id = p.id
    GROUP BY p.developer
)
SELECT d.developer, coalesce(a.hits, 0) AS hits,
       coalesce(a.counted, 0) + coalesce(st.trials, 1) * d.points - coalesce(a.present, 0) AS moments
FROM devs d
CROSS JOIN st
LEFT JOIN agg a ON a.developer = d.developer
ORDER BY d.developer
