SELECT judge, target, count(*) AS n, count(*) FILTER (WHERE move = 'unparseable') AS unparseable
FROM labels GROUP BY ALL ORDER BY judge, target
