-- The errors of one revision, in order (index on simulation_id first, as
-- in review_decision_get).
WITH e AS MATERIALIZED (SELECT * FROM rv_revision_errors WHERE simulation_id = ?)
SELECT x.idx, x.turn_idx, x.code, x.severity, x.note
FROM e x
WHERE x.reviewer = ? AND x.revision = ?
ORDER BY x.idx
