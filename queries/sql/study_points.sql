-- study_points: every frozen point (ub_study_points, study_cells_points)
-- with the move the study's judge gave the real developer message there
-- ('' when unlabelled) and that message (NULL when its turn is missing);
-- the last column is the number of points, for the reader's slice.
SELECT sp.id, sp.developer, sp.session_id, sp.turn_idx, sp.prior_turns, sp.constant_dose,
       sp.real_move, t.text, count(*) OVER () AS points
FROM ub_study_points sp
LEFT JOIN turns t ON t.session_id = sp.session_id AND t.idx = sp.turn_idx
ORDER BY sp.pt
