-- view_ub_developers: the developers of one leaderboard row, simulator $1
-- under condition $2, from ub_view_moments (view_ub_warm): per developer,
-- the scorable moments (one per point and trial; a point without a
-- generation counts once), the generations, the hits and the failed
-- generations. One page: $3 rows from offset $4, by developer, with the
-- number of developers in the last column.
WITH devs AS (
    SELECT developer,
           count(*) AS moments,
           count(*) FILTER (WHERE generated_here) AS generated,
           count(*) FILTER (WHERE hit) AS hits,
           count(*) FILTER (WHERE failed AND generated_here) AS failed
    FROM ub_view_moments
    WHERE simulator = $1 AND condition = $2
    GROUP BY developer
)
SELECT developer, moments, generated, hits, failed, count(*) OVER () AS total
FROM devs
ORDER BY developer
LIMIT $3 OFFSET $4
