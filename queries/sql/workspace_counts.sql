-- workspace_counts: the totals a summary prints.
SELECT
    (SELECT count(*) FROM sessions)        AS sessions,
    (SELECT count(*) FROM turns)           AS turns,
    (SELECT count(*) FROM developers)      AS developers,
    (SELECT count(*) FROM repos)           AS repos,
    (SELECT count(*) FROM ingest_errors)   AS errors
