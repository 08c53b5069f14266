-- study_length_words: the generations with text of the settings at live
-- window $1 and history $2 (the report's anchor, queries.Anchor: the only
-- one whose lengths it draws), counted per setting and length in words
-- (generations.words: queries.Words). Read from study_cells.
SELECT c.setting, c.words, count(*) AS n
FROM ub_study_cells c
JOIN ub_study_settings st USING (setting)
WHERE st.window_n = $1 AND st.history_k = $2 AND NOT c.failed
GROUP BY ALL
ORDER BY c.setting, c.words
