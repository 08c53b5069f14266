-- The stored applicability rows of the episodes whose rows changed
-- (ep_probe_changed_applicable.sql) are deleted; the staged ones are
-- inserted by ep_probe_insert_applicable.sql.
DELETE FROM ep_probe_applicable WHERE simulation_id IN (SELECT simulation_id FROM temp.ub_probe_changed_applicable)
