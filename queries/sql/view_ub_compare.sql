-- view_ub_compare: the points simulator $1 under condition $2 and
-- simulator $3 under condition $4 both generated at (from ub_view_moments,
-- view_ub_warm), side by side: developer, point, the real move, each
-- side's hits and moments (one a trial) and its generated moves in trial
-- order. Ordered by where they disagree: the gap between the two hit
-- shares, largest first, then developer and point. One page: $5 rows from
-- offset $6, with the number that pass and the number where the shares
-- differ in the last columns.
WITH side AS (
    SELECT simulator, condition, developer, point_id, any_value(real_move) AS real_move,
           count(*) AS moments, count(*) FILTER (WHERE hit) AS hits,
           string_agg(CASE WHEN failed THEN '(failed)' ELSE generated END, ' ' ORDER BY trial) AS moves
    FROM ub_view_moments
    WHERE generated_here AND ((simulator = $1 AND condition = $2) OR (simulator = $3 AND condition = $4))
    GROUP BY simulator, condition, developer, point_id
),
pairs AS (
    SELECT a.developer, a.point_id, a.real_move, a.hits AS hits_a, a.moments AS moments_a, a.moves AS moves_a,
           b.hits AS hits_b, b.moments AS moments_b, b.moves AS moves_b,
           abs(b.hits / b.moments - a.hits / a.moments) AS gap
    FROM side a
    JOIN side b ON b.point_id = a.point_id AND b.simulator = $3 AND b.condition = $4
    WHERE a.simulator = $1 AND a.condition = $2
)
SELECT developer, point_id, real_move, hits_a, moments_a, moves_a, hits_b, moments_b, moves_b,
       count(*) OVER () AS total, count(*) FILTER (WHERE gap > 0) OVER () AS disagree
FROM pairs
ORDER BY gap DESC, developer, point_id
LIMIT $5 OFFSET $6
