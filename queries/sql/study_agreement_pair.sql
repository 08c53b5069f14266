-- study_agreement_pair: the targets both judge $1 and judge $2 labelled,
-- counted by kind of target and the two moves: the confusion matrix behind
-- the pair's Cohen's kappa. One query per pair (LoadStudy asks for every
-- pair of judges, $1 < $2) instead of one self-join of every label: the
-- hash table holds one judge's labels only (a third of the time at 3
-- million labels).
SELECT a.target, a.move, b.move, count(*) AS n
FROM (SELECT target, target_id, move FROM labels WHERE judge = $1) a
JOIN (SELECT target, target_id, move FROM labels WHERE judge = $2) b
    ON b.target = a.target AND b.target_id = a.target_id
GROUP BY a.target, a.move, b.move
ORDER BY a.target, a.move, b.move
