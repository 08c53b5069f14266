-- simdata_point: one frozen point and its session's repository. Parameter: point id.
SELECT p.id, p.developer, p.split, p.session_id, p.turn_idx, p.prior_turns, p.constant_dose, s.repo
FROM points p
JOIN sessions s ON s.id = p.session_id
WHERE p.id = ?
ORDER BY p.session_id, p.turn_idx
LIMIT 1
