SELECT id, developers, repos, sessions, split FROM components ORDER BY id
