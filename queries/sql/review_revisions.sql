-- Every revision of a reviewer's decision on an episode, newest first.
SELECT r.revision, r.kind, r.outcome, coalesce(r.batch, ''), r.source, r.decided_at, r.lead_time, r.client_time,
       r.prefilled, r.undone_at
FROM rv_revisions r
WHERE r.simulation_id = ? AND r.reviewer = ?
ORDER BY r.revision DESC
