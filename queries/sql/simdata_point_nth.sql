-- simdata_point_nth: the id of the n-th frozen point (0-based offset) in id order.
SELECT id FROM points ORDER BY id LIMIT 1 OFFSET ?
