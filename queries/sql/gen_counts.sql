-- gen_counts: generations per simulator and condition, with and without text.
SELECT simulator, condition, count(*) AS n, count(*) FILTER (WHERE error IS NOT NULL) AS failed,
       coalesce(sum(cost), 0) AS cost
FROM generations GROUP BY ALL ORDER BY simulator, condition
