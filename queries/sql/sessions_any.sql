-- sessions_any: whether the workspace holds any session (ub ingest looks up the ids it reads only then, or when the run wrote the id).
SELECT EXISTS (SELECT 1 FROM sessions)
