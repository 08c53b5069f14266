-- view_ub_developers: the developers of one leaderboard row, simulator $2
-- under condition $3 at live window $4 and history $5, as judge $1 scored
-- them: per developer, the scorable moments (a point whose real message the
-- judge labelled with a move other than unparseable, once per trial of the
-- setting; a point without a generation counts once), the generations,
-- the hits (not failed and the judge's move is the real one) and the failed
-- generations (an error or no text). One page: $6 rows from offset $7,
-- with the number of developers in the last column.
WITH pts AS (
    SELECT p.id, p.developer, l.move AS real_move
    FROM points p
    JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
    WHERE l.move <> 'unparseable'
),
gens AS (
    SELECT g.point_id, g.error IS NOT NULL OR g.text IS NULL AS failed, lg.move
    FROM generations g
    LEFT JOIN labels lg ON lg.target = 'generation' AND lg.target_id = g.id AND lg.judge = $1
    WHERE g.simulator = $2 AND g.condition = $3 AND g.window_n = $4 AND g.history_k = $5
),
devs AS (
    SELECT p.developer,
           count(*) AS moments,
           count(g.point_id) AS generated,
           count(*) FILTER (WHERE NOT g.failed AND g.move = p.real_move) AS hits,
           count(*) FILTER (WHERE g.failed) AS failed
    FROM pts p
    LEFT JOIN gens g ON g.point_id = p.id
    GROUP BY p.developer
)
SELECT developer, moments, generated, hits, failed, count(*) OVER () AS total
FROM devs
ORDER BY developer
LIMIT $6 OFFSET $7
