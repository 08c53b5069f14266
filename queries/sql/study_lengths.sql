-- study_lengths: the lengths in words of the generations with text at
-- frozen points at live window $1 and history $2 (the report's anchor
-- setting, queries.Anchor: the only one whose lengths it draws), counted
-- per setting, developer and length. Words are counted by ub_words, which
-- is queries.Words registered as a DuckDB scalar function
-- (queries.registerWords): the one word counter of ub.
SELECT g.simulator, g.condition, g.window_n, g.history_k, p.developer,
       ub_words(g.text) AS words,
       count(*) AS n
FROM generations g
JOIN points p ON p.id = g.point_id
WHERE g.error IS NULL AND g.text IS NOT NULL AND g.window_n = $1 AND g.history_k = $2
GROUP BY ALL
ORDER BY g.simulator, g.condition, g.window_n, g.history_k, p.developer, words
