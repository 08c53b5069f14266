INSERT INTO developer_repos (developer, repo, source) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
