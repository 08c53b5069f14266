-- study_agreement: for every pair of judges (a < b), the targets both
-- labelled, counted by kind of target and the two moves: the confusion
-- matrices behind Cohen's kappa.
SELECT a.judge, b.judge, a.target, a.move, b.move, count(*) AS n
FROM labels a
JOIN labels b ON b.target = a.target AND b.target_id = a.target_id AND a.judge < b.judge
GROUP BY a.judge, b.judge, a.target, a.move, b.move
ORDER BY a.judge, b.judge, a.target, a.move, b.move
