SELECT 'developer ' || e.developer || ' (' || d.split || ') touched repository ' || e.repo || ' (' || r.split || ')'
FROM developer_repos e
JOIN developer_splits d ON d.developer = e.developer
JOIN repo_splits r ON r.repo = e.repo
WHERE d.split <> r.split ORDER BY 1
