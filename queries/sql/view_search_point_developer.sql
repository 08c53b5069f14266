-- view_search_point_developer: the developer of point $1 (no row when the
-- workspace does not hold it).
SELECT developer FROM points WHERE id = $1 ORDER BY developer LIMIT 1
