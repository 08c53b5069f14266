-- One page of a reviewer's queue in a batch (LIMIT, OFFSET): the page is
-- cut from the assignments first, so its cost does not grow with the
-- batch. States as in review_queue.
WITH page AS (
    SELECT a.position, a.simulation_id, a.reviewer
    FROM rv_assignments a
    WHERE a.batch = ? AND a.reviewer = ?
    ORDER BY a.position
    LIMIT ? OFFSET ?
)
SELECT p.position, p.simulation_id, coalesce(e.domain, ''), coalesce(e.task_id, ''), e.reward,
       coalesce(d.outcome, CASE WHEN EXISTS (SELECT 1 FROM rv_revisions r
                                             WHERE r.simulation_id = p.simulation_id AND r.reviewer = p.reviewer
                                               AND r.undone_at IS NULL) THEN 'skipped' END, ''),
       coalesce(d.kind, '')
FROM page p
LEFT JOIN ep_episodes e ON e.simulation_id = p.simulation_id
LEFT JOIN rv_decisions d ON d.simulation_id = p.simulation_id AND d.reviewer = p.reviewer
ORDER BY p.position
