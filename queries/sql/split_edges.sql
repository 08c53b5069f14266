-- split_edges: every developer <-> repository edge with its session count,
-- then developers and repositories without any edge (developer or repo '').
SELECT developer, repo, coalesce(n, 0) AS sessions
FROM (SELECT DISTINCT developer, repo FROM developer_repos) e
LEFT JOIN (SELECT developer, repo, count(*) AS n FROM sessions GROUP BY ALL) s USING (developer, repo)
UNION ALL
SELECT name, '', 0 FROM developers WHERE name NOT IN (SELECT developer FROM developer_repos)
UNION ALL
SELECT '', name, 0 FROM repos WHERE name NOT IN (SELECT repo FROM developer_repos)
ORDER BY 1, 2
