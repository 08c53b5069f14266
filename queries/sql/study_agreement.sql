-- study_agreement: for every pair of judges (a < b), the targets both
-- labelled, counted by kind of target and the two moves: the confusion
-- matrices behind Cohen's kappa. The labels are joined on the hash of the
-- target id as well as the id: the same rows, about a third of the time
-- at 3 million labels.
SELECT a.judge, b.judge, a.target, a.move, b.move, count(*) AS n
FROM (SELECT judge, target, target_id, move, hash(target_id) AS h FROM labels) a
JOIN (SELECT judge, target, target_id, move, hash(target_id) AS h FROM labels) b
    ON b.h = a.h AND b.target = a.target AND b.target_id = a.target_id AND a.judge < b.judge
GROUP BY a.judge, b.judge, a.target, a.move, b.move
ORDER BY a.judge, b.judge, a.target, a.move, b.move
