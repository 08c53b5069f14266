DELETE FROM repos r
WHERE NOT EXISTS (SELECT 1 FROM developer_repos e WHERE e.repo = r.name)
  AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.repo = r.name)
RETURNING name
