INSERT INTO ingest_errors (path, line, reason, format) VALUES (?, ?, ?, ?)
