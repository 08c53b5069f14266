SELECT 'repository ' || repo || ' is in splits ' || string_agg(DISTINCT split, ', ' ORDER BY split)
FROM repo_splits GROUP BY repo HAVING count(DISTINCT split) > 1 ORDER BY 1
