-- view_ub_warm_points: every frozen point with the label judge $1 gave its
-- real message (move, 7-way label, confidence, who decided it; '' or NULL
-- when unlabelled) and the real message itself, in a temporary table the
-- moment lists and pages of ub view read, so that they do not scan the
-- turns and labels for it. Sorted by point.
CREATE OR REPLACE TEMP TABLE ub_view_points AS
SELECT p.id AS point_id, p.developer, coalesce(l.move, '') AS move, coalesce(l.label7, '') AS label7,
       l.confidence, coalesce(l.decided_by, '') AS decided_by, l.move IS NOT NULL AS labelled,
       coalesce(t.text, '') AS real_text
FROM points p
LEFT JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
LEFT JOIN turns t ON t.session_id = p.session_id AND t.idx = p.turn_idx
ORDER BY p.id
