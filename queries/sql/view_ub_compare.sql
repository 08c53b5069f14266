-- view_ub_compare: the points simulator $1 under condition $2 and
-- simulator $3 under condition $4 both generated at, at live window $7
-- and history $8 (the anchor), side by side: developer, point, the real move, each
-- side's hits and moments (one a trial) and its generated moves in trial
-- order. Ordered by where they disagree: the gap between the two hit
-- shares, largest first, then developer and point. One page: $5 rows from
-- offset $6, with the number that pass and the number where the shares
-- differ in the last columns.
WITH side AS (
    -- the two settings' generations: two runs of ub_view_cells
    -- (view_ub_warm_cells, sorted by setting), each read by its own
    -- equality filter so that only its row groups are scanned
    SELECT c.*, true AS in_a, false AS in_b
    FROM ub_view_cells c
    WHERE c.simulator = $1 AND c.condition = $2 AND c.window_n = $7 AND c.history_k = $8
    UNION ALL
    SELECT c.*, false AS in_a, true AS in_b
    FROM ub_view_cells c
    WHERE c.simulator = $3 AND c.condition = $4 AND c.window_n = $7 AND c.history_k = $8
),
rows AS (
    -- at scorable points
    SELECT c.developer, c.point_id, p.move AS real_move, NOT c.failed AND c.move = p.move AS hit, c.trial,
           CASE WHEN c.failed THEN '(failed)' ELSE coalesce(c.move, '') END AS move, c.in_a, c.in_b
    FROM side c
    JOIN ub_view_points p ON p.point_id = c.point_id
    WHERE p.labelled AND p.move <> 'unparseable'
),
pairs AS (
    -- one pass, grouped by point; each side's moves in trial order
    -- (list_sort of (trial, move) pairs: an ordered aggregate sorts each
    -- group apart and took seconds at a million generations)
    SELECT developer, point_id, any_value(real_move) AS real_move,
           count(*) FILTER (WHERE in_a AND hit) AS hits_a, count(*) FILTER (WHERE in_a) AS moments_a,
           array_to_string(list_transform(list_sort(list({'t': trial, 'm': move}) FILTER (WHERE in_a)), x -> x.m), ' ') AS moves_a,
           count(*) FILTER (WHERE in_b AND hit) AS hits_b, count(*) FILTER (WHERE in_b) AS moments_b,
           array_to_string(list_transform(list_sort(list({'t': trial, 'm': move}) FILTER (WHERE in_b)), x -> x.m), ' ') AS moves_b
    FROM rows
    GROUP BY developer, point_id
    HAVING count(*) FILTER (WHERE in_a) > 0 AND count(*) FILTER (WHERE in_b) > 0
),
-- the counts once, not as window aggregates over every row (a filtered
-- count() OVER () took seconds at a million generations)
counts AS (
    SELECT count(*) AS total, count(*) FILTER (WHERE hits_b / moments_b <> hits_a / moments_a) AS disagree
    FROM pairs
)
SELECT developer, point_id, real_move, hits_a, moments_a, moves_a, hits_b, moments_b, moves_b, c.total, c.disagree
FROM pairs
CROSS JOIN counts c
ORDER BY abs(hits_b / moments_b - hits_a / moments_a) DESC, developer, point_id
LIMIT $5 OFFSET $6
