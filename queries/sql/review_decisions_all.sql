-- Every decision with its episode's domain, task and reward (null when the
-- episode is not in the workspace).
SELECT d.simulation_id, d.reviewer, d.kind, d.outcome, coalesce(d.batch, ''), d.source,
       d.decided_at, d.revision, e.domain, e.task_id, e.reward,
       d.lead_time, d.client_time, coalesce(d.prefilled, '')
FROM rv_decisions d
LEFT JOIN ep_episodes e USING (simulation_id)
ORDER BY d.simulation_id, d.reviewer
