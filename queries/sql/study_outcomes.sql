-- study_outcomes: the generations at scorable points (study_scores) of the
-- settings at live window $1 and history $2 (the report's anchor,
-- queries.Anchor: the only (N, K) whose moves it draws; study_scores
-- counts every setting without the moves), counted per setting, developer
-- (by number), real move and move generated: n counts the moments, scored
-- (generated is the judge's move) and failed (generated ''); unlabelled
-- counts the generations the judge has not labelled, which are not
-- moments (generated ''). Read from study_cells. The missing moments, a
-- scorable point with no generation of the setting, are the points not
-- counted here (a point has at most one generation of a setting):
-- LoadStudy adds them.
SELECT c.setting, sp.dev, sp.real_move,
       CASE WHEN c.failed THEN '' ELSE c.move END AS generated,
       count(*) FILTER (WHERE c.failed OR c.move <> '') AS n,
       count(*) FILTER (WHERE NOT c.failed AND c.move = '') AS unlabelled
FROM ub_study_cells c
JOIN ub_study_settings st USING (setting)
JOIN ub_study_points sp USING (pt)
WHERE st.window_n = $1 AND st.history_k = $2 AND sp.scorable
GROUP BY ALL
ORDER BY c.setting, sp.dev, sp.real_move, generated
