-- view_ub_generation_text: the text ('' when none) and error ('' when
-- none) of generation $1, read through the primary key's index.
SELECT coalesce(text, ''), coalesce(error, '') FROM generations WHERE id = $1 ORDER BY id
