DELETE FROM developers d
WHERE NOT EXISTS (SELECT 1 FROM developer_repos e WHERE e.developer = d.name)
  AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.developer = d.name)
RETURNING name
