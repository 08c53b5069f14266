-- study_cells_points: the frozen points as study_points and the aggregate
-- queries of the report read them (study_cells), in a temporary table: each numbered in
-- the order of study_points (pt: by developer, then id) and its developer
-- numbered by name (dev, from 1), with its constant-dose flag and the move
-- judge $1 gave its real message ('' when unlabelled); scorable when that
-- move is neither '' nor 'unparseable'.
CREATE OR REPLACE TEMP TABLE ub_study_points AS
SELECT row_number() OVER (ORDER BY p.developer, p.id)::INTEGER AS pt,
       dense_rank() OVER (ORDER BY p.developer)::INTEGER AS dev,
       p.id, p.developer, p.session_id, p.turn_idx, p.prior_turns, p.constant_dose,
       coalesce(l.move, '') AS real_move,
       coalesce(l.move, '') NOT IN ('', 'unparseable') AS scorable
FROM points p
LEFT JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
