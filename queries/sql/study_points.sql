-- study_points: every frozen point with the move judge $1 gave the real
-- developer message there ('' when unlabelled) and that message (NULL when
-- its turn is missing).
SELECT p.id, p.developer, p.session_id, p.turn_idx, p.prior_turns, p.constant_dose,
       coalesce(l.move, '') AS real_move,
       t.text
FROM points p
LEFT JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
LEFT JOIN turns t ON t.session_id = p.session_id AND t.idx = p.turn_idx
ORDER BY p.developer, p.id
