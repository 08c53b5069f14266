-- study_cells_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points, numbered in that order from
-- 1, with how many generations, their output tokens, their cost in USD
-- and its number of trials (the highest trial index plus one: a setting's
-- points are scored k times, a trial without a generation at a point
-- counting as missing there),
-- in a temporary table for study_settings and the aggregate queries of the
-- report (study_cells). The cost is summed as an exact decimal, so that
-- the total does not depend on the order DuckDB adds the rows in.
CREATE OR REPLACE TEMP TABLE ub_study_settings AS
SELECT row_number() OVER (ORDER BY simulator, condition, window_n, history_k)::INTEGER AS setting,
       simulator, condition, window_n, history_k, generations, tokens_out, cost, trials
FROM (SELECT g.simulator, g.condition, g.window_n, g.history_k,
             count(*) AS generations,
             coalesce(sum(coalesce(g.tokens_out, 0)), 0)::BIGINT AS tokens_out,
             coalesce(sum(coalesce(g.cost, 0)::DECIMAL(38, 12)), 0)::DOUBLE AS cost,
             (max(coalesce(g.trial, 0)) + 1)::INTEGER AS trials
      FROM generations g
      SEMI JOIN points p ON p.id = g.point_id
      GROUP BY g.simulator, g.condition, g.window_n, g.history_k)
