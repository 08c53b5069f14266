-- orphan_edges: session edges whose sessions were all replaced away.
DELETE FROM developer_repos e
WHERE e.source = 'session'
  AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.developer = e.developer AND s.repo = e.repo)
RETURNING developer, repo
