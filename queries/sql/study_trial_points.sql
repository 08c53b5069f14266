-- study_trial_points: how the trials of one point agree, for the settings
-- at live window $1 and history $2 (the report's anchor) with more than
-- one trial. For every scorable point with at least two counted trials
-- (scored or failed; a generation the judge has not labelled is not
-- counted, a missing one neither), the trials counted, their hits and
-- whether their generated moves differ (a failed trial's move is ''),
-- counted per setting and those three. The per-point spread is formed from
-- these in Go (analysis.Spread), so that no floating-point sum depends on
-- DuckDB's order.
WITH anchor AS (
    SELECT setting FROM ub_study_settings
    WHERE window_n = $1 AND history_k = $2 AND trials > 1
),
pts AS (
    SELECT c.setting, c.pt,
           count(*) FILTER (WHERE c.failed OR c.labelled) AS counted,
           count(*) FILTER (WHERE c.hit) AS hits,
           count(DISTINCT CASE WHEN c.failed THEN '' ELSE c.move END) FILTER (WHERE c.failed OR c.labelled) AS moves
    FROM ub_study_cells c
    SEMI JOIN anchor a ON a.setting = c.setting
    WHERE c.scorable
    GROUP BY ALL
)
SELECT setting, counted::INTEGER AS trials, hits::INTEGER AS trial_hits, moves > 1 AS disagree, count(*) AS n
FROM pts
WHERE counted >= 2
GROUP BY ALL
ORDER BY setting, trials, trial_hits, disagree
