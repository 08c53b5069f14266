SELECT coalesce(decided_by, judge) AS decided_by, target, count(*) AS n, avg(confidence) AS mean_confidence
FROM labels WHERE judge = $1
GROUP BY ALL ORDER BY decided_by, target
