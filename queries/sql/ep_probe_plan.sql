-- ep_probe_plan: the plan of the probes' scan of ep_messages and
-- ep_tool_calls in storage order (StreamProbeEpisodes), one row per
-- simulation id that has an episode or a message or tool call: how many
-- rows of each table it has, and the step of the scan that brings its
-- last one (step k reads the rowids [k*?, (k+1)*?) of ep_messages and
-- [k*?, (k+1)*?) of ep_tool_calls; -1: it has none); whether it is a
-- stored episode (rows of no episode are read and dropped), its task key,
-- whether its run has no simulated user and whether it is a placeholder
-- of a simulation that never ran (tau2's infrastructure_error). Kept in
-- DuckDB, in step order, so that the scan holds in memory the episodes
-- begun, not one entry per episode of the workspace.
CREATE OR REPLACE TEMP TABLE ub_probe_plan AS
WITH m AS (
    SELECT simulation_id, count(*) AS n, max(rowid) AS last FROM ep_messages GROUP BY simulation_id
), c AS (
    SELECT simulation_id, count(*) AS n, max(rowid) AS last FROM ep_tool_calls GROUP BY simulation_id
), r AS (
    SELECT coalesce(m.simulation_id, c.simulation_id) AS simulation_id,
           coalesce(m.n, 0) AS n_m, coalesce(c.n, 0) AS n_c,
           greatest(coalesce(m.last // $1, -1), coalesce(c.last // $2, -1)) AS step
    FROM m FULL JOIN c ON c.simulation_id = m.simulation_id
)
SELECT coalesce(r.simulation_id, e.simulation_id) AS simulation_id,
       coalesce(r.step, -1) AS step, coalesce(r.n_m, 0) AS n_m, coalesce(r.n_c, 0) AS n_c,
       e.simulation_id IS NOT NULL AS stored, e.task_key,
       coalesce(ru.no_user, false) AS no_user,
       coalesce(e.termination_reason = 'infrastructure_error', false) AS no_run
FROM r
FULL JOIN ep_episodes e ON e.simulation_id = r.simulation_id
LEFT JOIN ep_runs ru ON ru.run_id = e.run_id
ORDER BY step, simulation_id
