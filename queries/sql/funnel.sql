-- funnel: val and test developers, and how many remain after each eligibility rule.
SELECT split,
       count(*) AS developers,
       count(*) FILTER (WHERE dropped_at IS DISTINCT FROM 'sessions') AS enough_sessions,
       count(*) FILTER (WHERE dropped_at IS NULL OR dropped_at = 'heldout_moments') AS enough_heldout_sessions,
       count(*) FILTER (WHERE eligible) AS eligible
FROM eligibility GROUP BY split
ORDER BY CASE split WHEN 'val' THEN 0 ELSE 1 END
