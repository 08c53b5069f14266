-- view_ub_point_label: the label judge $1 gave the real message of point
-- $2: its move, 7-way label ('' when none), confidence (NULL when the
-- judge gave none) and who decided it ('' when not recorded). No row when
-- unlabelled.
SELECT move, coalesce(label7, ''), confidence, coalesce(decided_by, '')
FROM labels
WHERE target = 'point' AND target_id = $2 AND judge = $1
ORDER BY target_id
