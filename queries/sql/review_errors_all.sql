SELECT x.simulation_id, x.reviewer, x.idx, x.turn_idx, x.code, x.severity, x.note
FROM rv_errors x
ORDER BY x.simulation_id, x.reviewer, x.idx
