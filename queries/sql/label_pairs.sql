-- label_pairs: targets labelled by both judges, with both moves and both
-- 7-way labels (label7, NULL when the judge gave none).
SELECT a.target, a.target_id, a.move, b.move, a.label7, b.label7
FROM labels a JOIN labels b ON b.target = a.target AND b.target_id = a.target_id
WHERE a.judge = ? AND b.judge = ?
ORDER BY a.target, a.target_id
