-- publish: the split in force (seed, ratios, rules, hash).
SELECT * FROM split_runs ORDER BY ALL
