-- The stored findings of the changed episodes (ep_probe_changed.sql) are
-- deleted; the staged ones are inserted by ep_probe_insert_findings.sql.
DELETE FROM ep_probe_findings WHERE simulation_id IN (SELECT simulation_id FROM temp.ub_probe_changed)
