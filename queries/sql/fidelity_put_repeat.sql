-- fidelity_put_repeat: a (simulation, criterion, grader) the staged
-- verdicts (ub_put_verdicts) give more than once, if any (the first by
-- key). ep_verdicts has no primary key (schema 0019) to refuse it.
SELECT simulation_id, criterion_id, grader
FROM ub_put_verdicts
GROUP BY simulation_id, criterion_id, grader
HAVING count(*) > 1
ORDER BY simulation_id, criterion_id, grader
LIMIT 1
