-- study_settings: every setting (simulator, condition, live window,
-- history) with generations at frozen points, by its number (study_cells):
-- how many generations, their output tokens, their cost in USD and its
-- number of trials (study_cells_settings).
SELECT setting, simulator, condition, window_n, history_k, generations, tokens_out, cost, trials
FROM ub_study_settings
ORDER BY setting
