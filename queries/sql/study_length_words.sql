-- study_length_words: the generations with text of the settings at the
-- report's anchor (study_cells: words is NULL elsewhere; queries.Anchor:
-- the only (N, K) whose lengths it draws), counted per setting and length
-- in words (generations.words: queries.Words).
SELECT setting, words, count(*) AS n
FROM ub_study_cells
WHERE words IS NOT NULL
GROUP BY ALL
ORDER BY setting, words
