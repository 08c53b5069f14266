-- study_cells_drop: drops the temporary tables of study_cells.
DROP TABLE IF EXISTS ub_study_cells;
DROP TABLE IF EXISTS ub_study_settings;
DROP TABLE IF EXISTS ub_study_points;
DROP TABLE IF EXISTS ub_study_words;
