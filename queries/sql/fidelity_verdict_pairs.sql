-- The verdicts of two graders (parameters 1 and 2) on the criteria of the
-- rubrics, one row a verdict with its criterion's family, sorted so that
-- the verdicts of one (episode, criterion) come together, the first
-- grader's first: queries.EachVerdictPair pairs and counts them as they
-- come. A sort spills to disk past memory_limit where the self-join of
-- the verdicts, whose hash table grows with them, ran out of memory.
SELECT v.simulation_id, v.criterion_id, v.grader = ?1 AS first, c.family, v.verdict
FROM ep_verdicts v
JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id
WHERE v.grader = ?1 OR v.grader = ?2
ORDER BY v.simulation_id, v.criterion_id, first DESC
