-- The graders of the accepted staged verdicts, by name.
SELECT DISTINCT grader FROM ub_verdict_stage ANTI JOIN ub_verdict_refused USING (line) ORDER BY grader
