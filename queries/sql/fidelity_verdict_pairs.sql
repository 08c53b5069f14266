-- The verdicts two graders (parameters 1 and 2) both gave, counted per
-- episode, criterion family and pair of verdicts (a few rows an episode
-- instead of one per criterion).
SELECT a.simulation_id, c.family, a.verdict, b.verdict, count(*)
FROM ep_verdicts a
JOIN ep_verdicts b ON b.simulation_id = a.simulation_id AND b.criterion_id = a.criterion_id AND b.grader = ?2
JOIN ep_rubric_criteria c ON c.criterion_id = a.criterion_id
WHERE a.grader = ?1
GROUP BY a.simulation_id, c.family, a.verdict, b.verdict
ORDER BY a.simulation_id, c.family, a.verdict, b.verdict
