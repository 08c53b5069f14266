-- The episodes whose staged applicability rows (temp.ub_probe_applicable,
-- one per key) differ from the stored ones: a stored (episode, probe) not
-- staged, a staged one not stored, or one stored more than once. The
-- table has no key (0020): this is what keeps one row per key.
CREATE OR REPLACE TEMP TABLE ub_probe_changed_applicable AS
SELECT a.simulation_id FROM ep_probe_applicable a
WHERE NOT EXISTS (SELECT 1 FROM temp.ub_probe_applicable n WHERE n.simulation_id = a.simulation_id AND n.probe = a.probe)
UNION
SELECT n.simulation_id FROM temp.ub_probe_applicable n
WHERE NOT EXISTS (SELECT 1 FROM ep_probe_applicable a WHERE a.simulation_id = n.simulation_id AND a.probe = n.probe)
UNION
SELECT simulation_id FROM ep_probe_applicable GROUP BY simulation_id, probe HAVING count(*) > 1
