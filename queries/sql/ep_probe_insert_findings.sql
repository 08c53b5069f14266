-- The staged findings of the changed episodes, in the order they were
-- staged.
INSERT INTO ep_probe_findings
SELECT f.* FROM temp.ub_probe_findings f
WHERE f.simulation_id IN (SELECT simulation_id FROM temp.ub_probe_changed)
ORDER BY f.rowid
