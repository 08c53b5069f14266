-- A reviewer's queue in a batch, with each episode's decision state.
SELECT a.position, a.simulation_id, coalesce(e.domain, ''), coalesce(e.task_id, ''), e.reward,
       coalesce(d.outcome, ''), coalesce(d.kind, '')
FROM rv_assignments a
LEFT JOIN ep_episodes e USING (simulation_id)
LEFT JOIN rv_decisions d ON d.simulation_id = a.simulation_id AND d.reviewer = a.reviewer
WHERE a.batch = ? AND a.reviewer = ?
ORDER BY a.position
