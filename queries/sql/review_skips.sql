-- The standing skips: reviewers whose latest standing revision on an
-- episode is a skip (so they have no decision on it), by episode and
-- reviewer.
SELECT r.simulation_id, r.reviewer, r.kind, coalesce(r.batch, ''), r.source, r.decided_at, r.revision, r.lead_time, r.client_time
FROM rv_revisions r
WHERE r.outcome = 'skipped' AND r.undone_at IS NULL
  AND r.revision = (SELECT max(x.revision) FROM rv_revisions x
                    WHERE x.simulation_id = r.simulation_id AND x.reviewer = r.reviewer AND x.undone_at IS NULL)
  AND NOT EXISTS (SELECT 1 FROM rv_decisions d WHERE d.simulation_id = r.simulation_id AND d.reviewer = r.reviewer)
ORDER BY r.simulation_id, r.reviewer
