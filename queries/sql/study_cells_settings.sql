-- study_cells_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points, numbered in that order from
-- 1, in a temporary table for the aggregate queries of the report
-- (study_cells).
CREATE OR REPLACE TEMP TABLE ub_study_settings AS
SELECT row_number() OVER (ORDER BY simulator, condition, window_n, history_k)::INTEGER AS setting,
       simulator, condition, window_n, history_k
FROM (SELECT DISTINCT g.simulator, g.condition, g.window_n, g.history_k
      FROM generations g
      SEMI JOIN points p ON p.id = g.point_id)
