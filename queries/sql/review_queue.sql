-- A reviewer's queue in a batch, with each episode's decision state
-- ('skipped': no decision, and the latest standing revision is a skip).
SELECT a.position, a.simulation_id, coalesce(e.domain, ''), coalesce(e.task_id, ''), e.reward,
       coalesce(d.outcome, CASE WHEN s.simulation_id IS NOT NULL THEN 'skipped' END, ''), coalesce(d.kind, '')
FROM rv_assignments a
LEFT JOIN ep_episodes e USING (simulation_id)
LEFT JOIN rv_decisions d ON d.simulation_id = a.simulation_id AND d.reviewer = a.reviewer
LEFT JOIN (SELECT DISTINCT simulation_id, reviewer FROM rv_revisions WHERE undone_at IS NULL) s
       ON s.simulation_id = a.simulation_id AND s.reviewer = a.reviewer
WHERE a.batch = ? AND a.reviewer = ?
ORDER BY a.position
