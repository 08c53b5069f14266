-- fidelity_delete_verdicts: the stored verdicts that the staged ones
-- (ub_put_verdicts) replace: same episode, criterion and grader, deleted
-- before they are inserted in the same transaction (no index keeps a key
-- to one row: schema 0019).
DELETE FROM ep_verdicts v
USING ub_put_verdicts p
WHERE v.simulation_id = p.simulation_id
  AND v.criterion_id = p.criterion_id
  AND v.grader = p.grader
