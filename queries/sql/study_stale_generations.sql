-- study_stale_generations: generations whose point is not among the frozen
-- points (made before a re-freeze): every generation less those at frozen
-- points (ub_study_settings, study_cells_settings).
SELECT (SELECT count(*) FROM generations) - (SELECT coalesce(sum(generations), 0) FROM ub_study_settings)
