SELECT 'developer ' || name || ' has no split (ingested after ub split? run it again)'
FROM developers WHERE name NOT IN (SELECT developer FROM developer_splits)
UNION ALL
SELECT 'repository ' || name || ' has no split (ingested after ub split? run it again)'
FROM repos WHERE name NOT IN (SELECT repo FROM repo_splits)
UNION ALL
SELECT 'session ' || id || ' has no time-split role (ingested after ub split? run it again)'
FROM sessions WHERE id NOT IN (SELECT session_id FROM session_roles)
ORDER BY 1
