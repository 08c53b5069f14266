-- view_search_point_developers: the developer of each point $1 names (a
-- JSON array of point ids: those of a search page's hits in generations);
-- no row for one the workspace does not hold.
SELECT id, min(developer) FROM points
WHERE id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
GROUP BY id
ORDER BY id
