-- The errors of a reviewer's current decision (index on simulation_id
-- first, as in review_decision_get).
WITH e AS MATERIALIZED (SELECT * FROM rv_errors WHERE simulation_id = ?)
SELECT x.idx, x.turn_idx, x.code, x.severity, x.note
FROM e x
WHERE x.reviewer = ?
ORDER BY x.idx
