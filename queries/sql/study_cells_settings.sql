-- study_cells_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points, numbered in that order from
-- 1, with how many generations, their output tokens and their cost in USD,
-- in a temporary table for study_settings and the aggregate queries of the
-- report (study_cells). The cost is summed as an exact decimal, so that
-- the total does not depend on the order DuckDB adds the rows in.
CREATE OR REPLACE TEMP TABLE ub_study_settings AS
SELECT row_number() OVER (ORDER BY simulator, condition, window_n, history_k)::INTEGER AS setting,
       simulator, condition, window_n, history_k, generations, tokens_out, cost
FROM (SELECT g.simulator, g.condition, g.window_n, g.history_k,
             count(*) AS generations,
             coalesce(sum(coalesce(g.tokens_out, 0)), 0)::BIGINT AS tokens_out,
             coalesce(sum(coalesce(g.cost, 0)::DECIMAL(38, 12)), 0)::DOUBLE AS cost
      FROM generations g
      SEMI JOIN points p ON p.id = g.point_id
      GROUP BY g.simulator, g.condition, g.window_n, g.history_k)
