-- view_ub_warm_cells: every generation at a frozen point, of every
-- setting (simulator, condition, live window, history), as judge $1
-- labelled it, in a temporary table the sweep cells' pages read
-- (view_ub_cell, view_ub_cell_developers): the developer, point and
-- trial, failed (an error or no text) and the judge's move (NULL when
-- unlabelled). Sorted by setting, developer and point, so that a cell's
-- page reads one contiguous run of rows, not the generations and labels.
CREATE OR REPLACE TEMP TABLE ub_view_cells AS
SELECT g.simulator, g.condition, g.window_n, g.history_k, p.developer, g.point_id,
       coalesce(g.trial, 0) AS trial, g.error IS NOT NULL OR g.text IS NULL AS failed, lg.move
FROM generations g
JOIN points p ON p.id = g.point_id
LEFT JOIN labels lg ON lg.target = 'generation' AND lg.target_id = g.id AND lg.judge = $1
ORDER BY g.simulator, g.condition, g.window_n, g.history_k, p.developer, g.point_id, trial
