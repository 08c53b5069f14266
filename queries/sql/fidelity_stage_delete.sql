-- Forget the stored verdicts an accepted staged verdict replaces (same
-- simulation, criterion and grader), before fidelity_stage_store.sql
-- stores it in the same transaction: no index keeps a key to one row
-- (schema 0019), this does. A hash join, which DuckDB spills past
-- memory_limit.
DELETE FROM ep_verdicts v
USING (SELECT simulation_id, criterion_id, grader FROM ub_verdict_stage ANTI JOIN ub_verdict_refused USING (line)) s
WHERE v.simulation_id = s.simulation_id AND v.criterion_id = s.criterion_id AND v.grader = s.grader
