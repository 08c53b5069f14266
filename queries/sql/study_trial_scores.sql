-- study_trial_scores: the scored moments (study_scores) of each trial
-- apart, for the settings at live window $1 and history $2 (the report's
-- anchor, queries.Anchor) with more than one trial: per setting,
-- developer (by number) with scorable points, and trial (from 0), the
-- hits and the moments (scored, failed and missing: the developer's
-- scorable points less the generations of that trial there). The
-- between-trial spread of the macro accuracy is formed from these.
WITH anchor AS (
    SELECT setting, trials FROM ub_study_settings
    WHERE window_n = $1 AND history_k = $2 AND trials > 1
),
devs AS (
    SELECT dev, count(*) AS points
    FROM ub_study_points
    WHERE scorable
    GROUP BY dev
),
agg AS (
    SELECT c.setting, c.dev, c.trial,
           count(*) FILTER (WHERE c.hit) AS hits,
           count(*) FILTER (WHERE c.failed OR c.labelled) AS counted,
           count(*) AS present
    FROM ub_study_cells c
    SEMI JOIN anchor a ON a.setting = c.setting
    WHERE c.scorable
    GROUP BY ALL
)
SELECT a.setting, d.dev, t.trial,
       coalesce(g.hits, 0) AS hits,
       coalesce(g.counted, 0) + d.points - coalesce(g.present, 0) AS moments
FROM anchor a
CROSS JOIN LATERAL (SELECT unnest(range(a.trials))::INTEGER AS trial) t
CROSS JOIN devs d
LEFT JOIN agg g ON g.setting = a.setting AND g.dev = d.dev AND g.trial = t.trial
ORDER BY a.setting, d.dev, t.trial
