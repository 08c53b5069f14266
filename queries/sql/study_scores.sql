-- study_scores: the scored moments of every setting, counted per developer
-- without their moves: what the accuracy statistics of the sweeps need at
-- every setting (study_outcomes gives the moves, at the anchor setting
-- only). A moment is a frozen point whose real message judge $1 labelled
-- with a move other than 'unparseable'; its kinds are those of
-- study_outcomes. Per setting (those of study_settings) and developer with
-- scorable points:
--   hits, moments            scored moments whose generated move is the
--                            real move; scored + failed + missing moments
--   dose_hits, dose_moments  the same at constant-dose points
--   failed, missing, unlabelled
-- A developer without a generation of the setting has every scorable
-- point missing. The generations are first counted per setting (numbered)
-- and point, so that the points present are a count(*) of integer-keyed
-- groups instead of a count(DISTINCT point_id) per setting and developer
-- (half the time at scale 100).
WITH scorable AS (
    SELECT p.id, p.developer, p.constant_dose, l.move AS real_move
    FROM points p
    JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
    WHERE l.move <> '' AND l.move <> 'unparseable'
),
devs AS (
    SELECT developer, count(*) AS points, count(*) FILTER (WHERE constant_dose) AS dose_points
    FROM scorable
    GROUP BY developer
),
gens AS (
    SELECT g.point_id, g.simulator, g.condition, g.window_n, g.history_k,
           g.error IS NOT NULL OR g.text IS NULL AS failed,
           coalesce(l.move, '') AS move
    FROM generations g
    JOIN points p ON p.id = g.point_id
    LEFT JOIN labels l ON l.target = 'generation' AND l.target_id = g.id AND l.judge = $1
),
settings AS (
    SELECT simulator, condition, window_n, history_k,
           row_number() OVER (ORDER BY simulator, condition, window_n, history_k) AS setting
    FROM (SELECT DISTINCT simulator, condition, window_n, history_k FROM gens)
),
per_point AS (
    SELECT st.setting, g.point_id,
           count(*) FILTER (WHERE NOT g.failed AND g.move = s.real_move) AS hits,
           count(*) FILTER (WHERE NOT g.failed AND g.move <> '') AS scored,
           count(*) FILTER (WHERE g.failed) AS failed,
           count(*) FILTER (WHERE NOT g.failed AND g.move = '') AS unlabelled,
           any_value(s.developer) AS developer, any_value(s.constant_dose) AS constant_dose
    FROM gens g
    JOIN settings st USING (simulator, condition, window_n, history_k)
    JOIN scorable s ON s.id = g.point_id
    GROUP BY st.setting, g.point_id
),
agg AS (
    SELECT setting, developer,
           sum(hits) AS hits, sum(scored) AS scored, sum(failed) AS failed, sum(unlabelled) AS unlabelled,
           sum(hits) FILTER (WHERE constant_dose) AS dose_hits,
           sum(scored + failed) FILTER (WHERE constant_dose) AS dose_counted,
           count(*) AS present,
           count(*) FILTER (WHERE constant_dose) AS dose_present
    FROM per_point
    GROUP BY setting, developer
)
SELECT st.simulator, st.condition, st.window_n, st.history_k, d.developer,
       coalesce(a.hits, 0) AS hits,
       coalesce(a.scored + a.failed, 0) + d.points - coalesce(a.present, 0) AS moments,
       coalesce(a.dose_hits, 0) AS dose_hits,
       coalesce(a.dose_counted, 0) + d.dose_points - coalesce(a.dose_present, 0) AS dose_moments,
       coalesce(a.failed, 0) AS failed,
       d.points - coalesce(a.present, 0) AS missing,
       coalesce(a.unlabelled, 0) AS unlabelled
FROM settings st
CROSS JOIN devs d
LEFT JOIN agg a ON a.setting = st.setting AND a.developer = d.developer
ORDER BY st.simulator, st.condition, st.window_n, st.history_k, d.developer
