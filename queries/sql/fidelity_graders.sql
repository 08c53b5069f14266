-- Every grader with its number of verdicts and of episodes graded, and
-- the verdicts ub grade gave (a prompt version; imports have none).
SELECT grader, count(*) AS verdicts, count(DISTINCT simulation_id) AS episodes,
       count(prompt_version) AS graded
FROM ep_verdicts
GROUP BY grader
ORDER BY grader
