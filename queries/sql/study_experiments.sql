-- study_experiments: generations per experiment ('' when none was named).
SELECT coalesce(experiment, '') AS experiment, count(*) AS generations
FROM generations
GROUP BY 1
ORDER BY 1
