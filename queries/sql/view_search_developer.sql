-- view_search_developer: whether the workspace holds developer $1.
SELECT count(*) > 0 FROM developers WHERE name = $1
