-- Every grader with its number of verdicts and of episodes graded.
SELECT grader, count(*) AS verdicts, count(DISTINCT simulation_id) AS episodes
FROM ep_verdicts
GROUP BY grader
ORDER BY grader
