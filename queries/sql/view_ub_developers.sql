-- view_ub_developers: the developers of one leaderboard row, simulator $1
-- under condition $2, from ub_view_devs (view_ub_warm_devs): per
-- developer, the scorable moments, the generations, the hits and the
-- failed generations. One page: $3 rows from offset $4, by developer,
-- with the number of developers in the last column.
SELECT developer, moments, generated, hits, failed, count(*) OVER () AS total
FROM ub_view_devs
WHERE simulator = $1 AND condition = $2
ORDER BY developer
LIMIT $3 OFFSET $4
