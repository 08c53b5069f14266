-- view_ub_cell_developers: the hits and moments of each developer at one
-- setting of a sweep (simulator $2, condition $3, live window $4, history
-- $5) as judge $1 scored them, the constant-dose points only when $6,
-- counted as the report counts them (study_scores): a scorable point is
-- a moment in each of the setting's trials; a generation the judge
-- labelled or that failed is scored, a missing one is a miss, one the
-- judge has not labelled is not a moment. Every developer with a scorable
-- point, by developer.
WITH pts AS (
    SELECT p.id, p.developer, l.move AS real_move
    FROM points p
    JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
    WHERE l.move <> 'unparseable' AND (NOT $6 OR p.constant_dose)
),
gens AS (
    SELECT g.point_id, g.error IS NOT NULL OR g.text IS NULL AS failed, lg.move
    FROM generations g
    LEFT JOIN labels lg ON lg.target = 'generation' AND lg.target_id = g.id AND lg.judge = $1
    WHERE g.simulator = $2 AND g.condition = $3 AND g.window_n = $4 AND g.history_k = $5
),
st AS (
    SELECT (max(coalesce(g.trial, 0)) + 1)::INTEGER AS trials
    FROM generations g
    SEMI JOIN points p ON p.id = g.point_id
    WHERE g.simulator = $2 AND g.condition = $3 AND g.window_n = $4 AND g.history_k = $5
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
