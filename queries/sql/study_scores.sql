-- study_scores: the scored moments of every setting, counted per developer
-- without their moves: what the accuracy statistics of the sweeps need at
-- every setting (study_outcomes gives the moves, at the anchor setting
-- only). Read from study_cells. A moment is a frozen point whose real
-- message the judge labelled with a move other than 'unparseable'
-- (scorable); it is scored (a generation the judge labelled), failed (a
-- generation with an error or no text) or missing (no generation of the
-- setting at the point); a generation the judge has not labelled is not a
-- moment. Per setting and developer (by number: study_settings,
-- study_developers) with scorable points:
--   hits, moments            scored moments whose generated move is the
--                            real move; scored + failed + missing moments
--   dose_hits, dose_moments  the same at constant-dose points
--   failed, missing, unlabelled
-- A developer without a generation of the setting has every scorable
-- point missing. A setting of k trials (ub_study_settings.trials) scores
-- every scorable point k times, and a point has at most one generation of
-- a setting in each trial (study_cells), so the missing moments are k
-- times the points less the generations present. The hits and moments of
-- a developer are summed over the trials: their ratio is the mean of the
-- developer's per-trial accuracies whenever every trial scores the same
-- moments (every generation labelled), and with one trial it is the
-- single-trial accuracy.
WITH devs AS (
    SELECT dev, count(*) AS points, count(*) FILTER (WHERE constant_dose) AS dose_points
    FROM ub_study_points
    WHERE scorable
    GROUP BY dev
),
agg AS (
    SELECT setting, dev,
           count(*) FILTER (WHERE hit) AS hits,
           count(*) FILTER (WHERE NOT failed AND labelled) AS scored,
           count(*) FILTER (WHERE failed) AS failed,
           count(*) FILTER (WHERE NOT failed AND NOT labelled) AS unlabelled,
           count(*) FILTER (WHERE dose AND hit) AS dose_hits,
           count(*) FILTER (WHERE dose AND (failed OR labelled)) AS dose_counted,
           count(*) AS present,
           count(*) FILTER (WHERE dose) AS dose_present
    FROM ub_study_cells
    WHERE scorable
    GROUP BY setting, dev
)
SELECT st.setting, d.dev,
       coalesce(a.hits, 0) AS hits,
       coalesce(a.scored + a.failed, 0) + st.trials * d.points - coalesce(a.present, 0) AS moments,
       coalesce(a.dose_hits, 0) AS dose_hits,
       coalesce(a.dose_counted, 0) + st.trials * d.dose_points - coalesce(a.dose_present, 0) AS dose_moments,
       coalesce(a.failed, 0) AS failed,
       st.trials * d.points - coalesce(a.present, 0) AS missing,
       coalesce(a.unlabelled, 0) AS unlabelled
FROM ub_study_settings st
CROSS JOIN devs d
LEFT JOIN agg a ON a.setting = st.setting AND a.dev = d.dev
ORDER BY st.setting, d.dev
