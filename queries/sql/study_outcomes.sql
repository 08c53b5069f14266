-- study_outcomes: the moments (study_scores) of the settings at live window
-- $1 and history $2 (the report's anchor, queries.Anchor: the only (N, K)
-- whose moves it draws; study_scores counts every setting without the
-- moves), counted per setting, developer (by number), real move and move
-- generated: a scored moment has the judge's move as generated, a failed
-- or missing one ''. Read from study_cells. The missing moments of a real
-- move are the developer's scorable points with that move, times the
-- setting's trials, less the generations of the setting there (a point
-- has at most one in each trial), labelled or not; the moments of every
-- trial are counted together (study_scores).
-- The last column is the number of rows, for the reader's slice.
WITH anchor AS (
    SELECT setting, trials FROM ub_study_settings WHERE window_n = $1 AND history_k = $2
),
gens AS (
    SELECT c.setting, c.dev, sp.real_move,
           CASE WHEN c.failed THEN '' ELSE c.move END AS generated,
           count(*) FILTER (WHERE c.failed OR c.labelled) AS n,
           count(*) AS present
    FROM ub_study_cells c
    JOIN ub_study_points sp USING (pt)
    WHERE c.move IS NOT NULL AND c.scorable
    GROUP BY ALL
),
pairs AS (
    SELECT dev, real_move, count(*) AS points
    FROM ub_study_points
    WHERE scorable
    GROUP BY ALL
),
missing AS (
    SELECT a.setting, p.dev, p.real_move, '' AS generated,
           a.trials * p.points - coalesce(sum(g.present), 0) AS n
    FROM anchor a
    CROSS JOIN pairs p
    LEFT JOIN gens g ON g.setting = a.setting AND g.dev = p.dev AND g.real_move = p.real_move
    GROUP BY a.setting, a.trials, p.dev, p.real_move, p.points
),
moments AS (
    SELECT setting, dev, real_move, generated, sum(n)::BIGINT AS n
    FROM (SELECT setting, dev, real_move, generated, n FROM gens
          UNION ALL
          SELECT setting, dev, real_move, generated, n FROM missing)
    GROUP BY ALL
    HAVING sum(n) > 0
)
SELECT setting, dev, real_move, generated, n, count(*) OVER () AS rows
FROM moments
ORDER BY setting, dev, real_move, generated
