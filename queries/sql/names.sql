-- names: every developer, repository and edge, so ingest appends only new ones.
SELECT 'developer' AS kind, name AS a, '' AS b, '' AS c FROM developers
UNION ALL SELECT 'repo', name, '', '' FROM repos
UNION ALL SELECT 'edge', developer, repo, source FROM developer_repos
ORDER BY kind, a, b, c
