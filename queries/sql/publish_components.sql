-- publish: the developer <-> repository components and their split.
SELECT id, developers, repos, sessions, split FROM components ORDER BY id
