-- study_length_developers: the generations with text of the settings at
-- live window $1 and history $2 (as study_length_words), counted per
-- setting and developer (by number), with their words in all.
SELECT c.setting, sp.dev, count(*) AS n, sum(c.words)::BIGINT AS words
FROM ub_study_cells c
JOIN ub_study_settings st USING (setting)
JOIN ub_study_points sp USING (pt)
WHERE st.window_n = $1 AND st.history_k = $2 AND NOT c.failed
GROUP BY ALL
ORDER BY c.setting, sp.dev
