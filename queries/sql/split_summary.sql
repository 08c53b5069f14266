-- split_summary: developers, repositories, sessions and components per split.
SELECT s.split,
       (SELECT count(*) FROM developer_splits d WHERE d.split = s.split) AS developers,
       (SELECT count(*) FROM repo_splits r WHERE r.split = s.split) AS repos,
       (SELECT count(*) FROM sessions x JOIN developer_splits d ON d.developer = x.developer WHERE d.split = s.split) AS sessions,
       (SELECT count(*) FROM components c WHERE c.split = s.split) AS components
FROM (SELECT DISTINCT split FROM components) s
ORDER BY CASE s.split WHEN 'train' THEN 0 WHEN 'val' THEN 1 WHEN 'test' THEN 2 ELSE 3 END, s.split
