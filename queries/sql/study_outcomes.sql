-- study_outcomes: the moments (study_scores) of the settings at live window
-- $1 and history $2 (the report's anchor, queries.Anchor: the only (N, K)
-- whose moves it draws; study_scores counts every setting without the
-- moves), counted per setting, developer (by number), real move and move
-- generated: a scored moment has the judge's move as generated, a failed
-- or missing one ''. Read from study_cells.
WITH anchor AS (
    SELECT setting FROM ub_study_settings WHERE window_n = $1 AND history_k = $2
),
cells AS (
    SELECT c.* FROM ub_study_cells c SEMI JOIN anchor a ON a.setting = c.setting
),
moments AS (
    SELECT c.setting, sp.dev, sp.real_move, CASE WHEN c.failed THEN '' ELSE c.move END AS generated
    FROM cells c
    JOIN ub_study_points sp USING (pt)
    WHERE sp.scorable AND (c.failed OR c.move <> '')
    UNION ALL
    SELECT a.setting, sp.dev, sp.real_move, '' AS generated
    FROM anchor a
    CROSS JOIN ub_study_points sp
    ANTI JOIN cells c ON c.setting = a.setting AND c.pt = sp.pt
    WHERE sp.scorable
)
SELECT setting, dev, real_move, generated, count(*) AS n
FROM moments
GROUP BY ALL
ORDER BY setting, dev, real_move, generated
