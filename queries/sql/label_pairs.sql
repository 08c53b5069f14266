-- label_pairs: targets labelled by both judges, with both moves.
SELECT a.target, a.target_id, a.move, b.move
FROM labels a JOIN labels b ON b.target = a.target AND b.target_id = a.target_id
WHERE a.judge = ? AND b.judge = ?
ORDER BY a.target, a.target_id
