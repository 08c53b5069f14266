-- study_outcomes: the scored moments of the settings at live window $2 and
-- history $3 (the report's anchor, queries.Anchor: the only (N, K) whose
-- moves it draws; study_scores counts every setting without the moves),
-- counted. A moment is
-- a frozen point whose real message judge $1 labelled with a move other
-- than 'unparseable'. Per setting, developer, real move, move generated and
-- constant-dose flag, the number of moments of each kind:
--   scored      a generation the judge labelled (generated = its move)
--   failed      a generation with an error or no text (generated = '')
--   unlabelled  a generation the judge has not labelled (generated = '')
--   missing     no generation of the setting at the point (generated = '')
-- Settings are those of study_settings at ($2, $3).
WITH pts AS (
    SELECT p.id, p.developer, p.constant_dose, coalesce(l.move, '') AS real_move
    FROM points p
    LEFT JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
),
scorable AS (
    SELECT * FROM pts WHERE real_move <> '' AND real_move <> 'unparseable'
),
gens AS (
    SELECT g.point_id, g.simulator, g.condition, g.window_n, g.history_k,
           CASE WHEN g.error IS NOT NULL OR g.text IS NULL THEN 'failed'
                WHEN coalesce(l.move, '') = '' THEN 'unlabelled'
                ELSE 'scored' END AS kind,
           CASE WHEN g.error IS NOT NULL OR g.text IS NULL THEN ''
                ELSE coalesce(l.move, '') END AS generated
    FROM generations g
    JOIN points p ON p.id = g.point_id
    LEFT JOIN labels l ON l.target = 'generation' AND l.target_id = g.id AND l.judge = $1
    WHERE g.window_n = $2 AND g.history_k = $3
),
settings AS (
    SELECT DISTINCT simulator, condition, window_n, history_k FROM gens
),
present AS (
    SELECT DISTINCT simulator, condition, window_n, history_k, point_id FROM gens
),
moments AS (
    SELECT g.simulator, g.condition, g.window_n, g.history_k, s.developer,
           s.real_move, g.generated, s.constant_dose, g.kind
    FROM gens g
    JOIN scorable s ON s.id = g.point_id
    UNION ALL
    SELECT st.simulator, st.condition, st.window_n, st.history_k, s.developer,
           s.real_move, '' AS generated, s.constant_dose, 'missing' AS kind
    FROM settings st
    CROSS JOIN scorable s
    ANTI JOIN present pr ON pr.simulator = st.simulator AND pr.condition = st.condition
        AND pr.window_n = st.window_n AND pr.history_k = st.history_k AND pr.point_id = s.id
)
SELECT simulator, condition, window_n, history_k, developer, real_move,
       generated, constant_dose, kind, count(*) AS n
FROM moments
GROUP BY ALL
ORDER BY simulator, condition, window_n, history_k, developer, real_move,
         generated, constant_dose, kind
