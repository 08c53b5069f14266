-- The staged findings of the changed episodes.
INSERT INTO ep_probe_findings
SELECT f.* FROM temp.ub_probe_findings f
WHERE f.simulation_id IN (SELECT simulation_id FROM temp.ub_probe_changed)
