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
-- point missing. Points with a generation are counted per setting and
-- developer (present) instead of being looked up one by one.
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
    SELECT DISTINCT simulator, condition, window_n, history_k FROM gens
),
agg AS (
    SELECT g.simulator, g.condition, g.window_n, g.history_k, s.developer,
           count(*) FILTER (WHERE NOT g.failed AND g.move = s.real_move) AS hits,
           count(*) FILTER (WHERE NOT g.failed AND g.move <> '') AS scored,
           count(*) FILTER (WHERE g.failed) AS failed,
           count(*) FILTER (WHERE NOT g.failed AND g.move = '') AS unlabelled,
           count(*) FILTER (WHERE s.constant_dose AND NOT g.failed AND g.move = s.real_move) AS dose_hits,
           count(*) FILTER (WHERE s.constant_dose AND (g.failed OR g.move <> '')) AS dose_counted,
           count(DISTINCT g.point_id) AS present,
           count(DISTINCT g.point_id) FILTER (WHERE s.constant_dose) AS dose_present
    FROM gens g
    JOIN scorable s ON s.id = g.point_id
    GROUP BY g.simulator, g.condition, g.window_n, g.history_k, s.developer
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
LEFT JOIN agg a ON a.simulator = st.simulator AND a.condition = st.condition
    AND a.window_n = st.window_n AND a.history_k = st.history_k AND a.developer = d.developer
ORDER BY st.simulator, st.condition, st.window_n, st.history_k, d.developer
