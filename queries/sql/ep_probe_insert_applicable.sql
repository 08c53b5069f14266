-- The staged applicability rows of the episodes whose rows changed.
INSERT INTO ep_probe_applicable
SELECT n.* FROM temp.ub_probe_applicable n
WHERE n.simulation_id IN (SELECT simulation_id FROM temp.ub_probe_changed_applicable)
