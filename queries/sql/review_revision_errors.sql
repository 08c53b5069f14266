-- The errors of one revision, in order.
SELECT x.idx, x.turn_idx, x.code, x.severity, x.note
FROM rv_revision_errors x
WHERE x.simulation_id = ? AND x.reviewer = ? AND x.revision = ?
ORDER BY x.idx
