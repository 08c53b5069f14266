-- The adjudicator's queue in a batch: every episode whose human reviewers
-- disagree on "has a simulator error" or "critical", with the adjudicator's
-- decision state.
WITH h AS (
    SELECT d.simulation_id, d.outcome,
           EXISTS (SELECT 1 FROM rv_errors x
                   WHERE x.simulation_id = d.simulation_id AND x.reviewer = d.reviewer
                     AND x.severity <> 'minor') AS critical
    FROM rv_decisions d
    WHERE d.kind = 'human' AND d.outcome <> 'failed'
      AND d.simulation_id IN (SELECT a.simulation_id FROM rv_assignments a WHERE a.batch = ?)
), dis AS (
    SELECT simulation_id FROM h
    GROUP BY simulation_id
    HAVING count(DISTINCT h.outcome || ':' || CAST(h.critical AS VARCHAR)) > 1
)
SELECT CAST(row_number() OVER (ORDER BY dis.simulation_id) AS INTEGER), dis.simulation_id,
       coalesce(e.domain, ''), coalesce(e.task_id, ''), e.reward,
       coalesce(d.outcome, ''), coalesce(d.kind, '')
FROM dis
LEFT JOIN ep_episodes e USING (simulation_id)
LEFT JOIN rv_decisions d ON d.simulation_id = dis.simulation_id AND d.reviewer = ?
ORDER BY dis.simulation_id
