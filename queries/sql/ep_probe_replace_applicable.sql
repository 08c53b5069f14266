-- The stored (episode, probe) applicability rows the staged ones
-- (temp.ub_probe_applicable) no longer hold.
DELETE FROM ep_probe_applicable a
WHERE NOT EXISTS (SELECT 1 FROM temp.ub_probe_applicable n WHERE n.simulation_id = a.simulation_id AND n.probe = a.probe)
