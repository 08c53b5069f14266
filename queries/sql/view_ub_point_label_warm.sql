-- view_ub_point_label_warm: the label of point $1's real message, from
-- ub_view_points (view_ub_warm_points): move, 7-way label, confidence,
-- who decided it, and whether it is labelled. No row for an unknown point.
SELECT move, label7, confidence, decided_by, labelled FROM ub_view_points WHERE point_id = $1 ORDER BY point_id
