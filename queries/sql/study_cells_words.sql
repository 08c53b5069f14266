-- study_cells_words: the lengths in words of the generations with text but
-- no words column (written without queries.RowWriter, e.g. by hand in
-- ub sql), counted by ub_words into a temporary table for study_cells;
-- empty for a workspace ub wrote (generations.words is filled on write and
-- by migration 0010), and then nearly free: DuckDB's statistics of words
-- show no NULL, so the texts are not read.
CREATE OR REPLACE TEMP TABLE ub_study_words AS
SELECT id, ub_words(text)::INTEGER AS words
FROM generations
WHERE words IS NULL AND text IS NOT NULL
