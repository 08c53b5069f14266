-- study_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points, by its number (study_cells):
-- how many generations, their output tokens and their cost in USD
-- (study_cells_settings).
SELECT setting, simulator, condition, window_n, history_k, generations, tokens_out, cost
FROM ub_study_settings
ORDER BY setting
