-- view_ub_point_labels_of: view_ub_point_label_warm of each point $1 names
-- (a JSON array of point ids), with the point first. No row for an
-- unknown point.
SELECT point_id, move, label7, confidence, decided_by, labelled
FROM ub_view_points
WHERE point_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY point_id
