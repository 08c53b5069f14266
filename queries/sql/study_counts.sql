-- study_counts: the totals the report's methods section gives.
SELECT
    (SELECT count(*) FROM developers)  AS developers,
    (SELECT count(*) FROM sessions)    AS sessions,
    (SELECT count(*) FROM turns)       AS turns,
    (SELECT count(*) FROM points)      AS points,
    (SELECT count(*) FROM generations) AS generations,
    (SELECT count(*) FROM labels)      AS labels
