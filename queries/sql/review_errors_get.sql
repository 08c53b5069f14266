SELECT x.idx, x.turn_idx, x.code, x.severity, x.note
FROM rv_errors x
WHERE x.simulation_id = ? AND x.reviewer = ?
ORDER BY x.idx
