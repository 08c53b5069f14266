-- view_ub_generation_texts_of: the text ('' when none) and error ('' when
-- none) of each generation $1 names (a JSON array of generation ids: the
-- generations one page lists), by id. One read of the generations for
-- them all: an id is found by a scan of the id column either way (DuckDB
-- uses no index for it), so a page reads them at once, not one by one.
SELECT id, coalesce(text, ''), coalesce(error, '')
FROM generations
WHERE id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY id
