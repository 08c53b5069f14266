-- label_matrix: the moves the given judges (one string, names separated
-- by chr(31)) gave the targets every one of them labelled readably.
WITH j AS (
    SELECT DISTINCT unnest(string_split(?, chr(31))) AS judge
), t AS (
    SELECT target, target_id
    FROM labels
    WHERE judge IN (SELECT judge FROM j) AND move <> 'unparseable'
    GROUP BY target, target_id
    HAVING count(DISTINCT judge) = (SELECT count(*) FROM j)
)
SELECT l.target, l.target_id, l.judge, l.move
FROM labels l
JOIN t ON t.target = l.target AND t.target_id = l.target_id
WHERE l.judge IN (SELECT judge FROM j)
ORDER BY l.target, l.target_id, l.judge
