-- ep_probe_plan_step: the simulation ids whose last row the probes' scan
-- reads at step ? (ep_probe_plan.sql), by simulation_id.
SELECT simulation_id, stored, task_key, n_m, n_c, no_user, no_run
FROM temp.ub_probe_plan
WHERE step = ?
ORDER BY simulation_id
