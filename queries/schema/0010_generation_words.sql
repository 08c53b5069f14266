-- generations.words: the length of the text in words as queries.Words
-- counts them (the one word counter of ub), kept when the generation is
-- written so that the report reads lengths without reading the texts
-- (study_cells); NULL when text is NULL. The generations already stored
-- get theirs here from ub_words, which is queries.Words registered in
-- DuckDB before the migrations run (queries.Open).
ALTER TABLE generations ADD COLUMN words INTEGER;
UPDATE generations SET words = ub_words(text) WHERE text IS NOT NULL;
