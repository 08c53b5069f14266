-- study_length_developers: the generations with text of the settings at
-- the report's anchor (as study_length_words), counted per setting and
-- developer (by number), with their words in all.
SELECT setting, dev, count(*) AS n, sum(words)::BIGINT AS words
FROM ub_study_cells
WHERE words IS NOT NULL
GROUP BY ALL
ORDER BY setting, dev
