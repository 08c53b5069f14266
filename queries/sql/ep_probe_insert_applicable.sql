-- The staged applicability rows not stored yet.
INSERT INTO ep_probe_applicable
SELECT n.* FROM temp.ub_probe_applicable n
WHERE NOT EXISTS (SELECT 1 FROM ep_probe_applicable a WHERE a.simulation_id = n.simulation_id AND a.probe = n.probe)
