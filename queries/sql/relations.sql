-- relations: every table and view a user may query or export.
SELECT table_name FROM information_schema.tables
WHERE table_schema = 'main' AND table_name <> 'schema_migrations'
ORDER BY table_name
