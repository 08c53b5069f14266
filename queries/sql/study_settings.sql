-- study_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points: how many, their output
-- tokens and their cost in USD. The cost is summed as an exact decimal, so
-- that the total does not depend on the order DuckDB adds the rows in.
SELECT g.simulator, g.condition, g.window_n, g.history_k,
       count(*) AS generations,
       coalesce(sum(coalesce(g.tokens_out, 0)), 0)::BIGINT AS tokens_out,
       coalesce(sum(coalesce(g.cost, 0)::DECIMAL(38, 12)), 0)::DOUBLE AS cost
FROM generations g
JOIN points p ON p.id = g.point_id
GROUP BY g.simulator, g.condition, g.window_n, g.history_k
ORDER BY g.simulator, g.condition, g.window_n, g.history_k
