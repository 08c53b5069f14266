-- simdata_points_of: simdata_point of each point $1 names (a JSON array
-- of point ids: a batch of the published site's moment pages), by id.
SELECT p.id, p.developer, p.split, p.session_id, p.turn_idx, p.prior_turns, p.constant_dose, s.repo
FROM points p
JOIN sessions s ON s.id = p.session_id
WHERE p.id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
-- one row a point, as simdata_point reads it, should an id be stored twice
QUALIFY row_number() OVER (PARTITION BY p.id ORDER BY p.session_id, p.turn_idx) = 1
ORDER BY p.id
