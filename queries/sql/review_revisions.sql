-- Every revision of a reviewer's decision on an episode, newest first
-- (index on simulation_id first, as in review_decision_get).
WITH e AS MATERIALIZED (SELECT * FROM rv_revisions WHERE simulation_id = ?)
SELECT r.revision, r.kind, r.outcome, coalesce(r.batch, ''), r.source, r.decided_at, r.lead_time, r.client_time,
       r.prefilled, r.undone_at
FROM e r
WHERE r.reviewer = ?
ORDER BY r.revision DESC
