-- study_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points, by its number (study_cells):
-- how many generations, their output tokens and their cost in USD. The
-- cost is summed as an exact decimal, so that the total does not depend on
-- the order DuckDB adds the rows in.
SELECT st.setting, st.simulator, st.condition, st.window_n, st.history_k,
       count(*) AS generations,
       coalesce(sum(coalesce(c.tokens_out, 0)), 0)::BIGINT AS tokens_out,
       coalesce(sum(coalesce(c.cost, 0)::DECIMAL(38, 12)), 0)::DOUBLE AS cost
FROM ub_study_cells c
JOIN ub_study_settings st USING (setting)
GROUP BY ALL
ORDER BY st.setting
