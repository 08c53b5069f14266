-- study_judges: every judge, the targets it labelled by kind, and its versions.
SELECT judge,
       count(*) FILTER (WHERE target = 'point') AS points,
       count(*) FILTER (WHERE target = 'generation') AS generations,
       count(*) FILTER (WHERE target NOT IN ('point', 'generation')) AS other,
       list(DISTINCT coalesce(prompt_version, '') ORDER BY coalesce(prompt_version, '')) AS versions
FROM labels
GROUP BY judge
ORDER BY judge
