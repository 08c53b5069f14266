-- view_ub_warm: every scorable moment of every setting at live window $2
-- and history $3 (the report's anchor, queries.Anchor: the only setting
-- whose rows the leaderboard shows), as judge $1 scored it, in a temporary
-- table the developer and moment lists of ub view read
-- (view_ub_developers, view_ub_moments), so that a page reads the rows of
-- one leaderboard row, not every generation. One row per setting, point
-- and trial, a point without a generation in the setting once (trial
-- NULL): the point's real move, the generation's move ('' when unlabelled
-- or missing), failed (an error, no text, or missing) and hit (not failed
-- and the judge's move is the real one). A scorable point is one whose
-- real message the judge labelled with a move other than unparseable.
-- Sorted by developer, point, simulator, condition and trial: a
-- developer's rows lie together (a moment list, a moment's generations
-- read them alone), and a list is a slice of them. gen_id is the
-- generation's id (NULL when missing), its text is read by id (the
-- primary key's index) for a page's rows only; confidence is the judge's
-- (NULL when none).
CREATE OR REPLACE TEMP TABLE ub_view_moments AS
WITH pts AS (
    SELECT p.id, p.developer, l.move AS real_move
    FROM points p
    JOIN labels l ON l.target = 'point' AND l.target_id = p.id AND l.judge = $1
    WHERE l.move <> 'unparseable'
),
settings AS (
    SELECT DISTINCT simulator, condition FROM generations WHERE window_n = $2 AND history_k = $3
),
gens AS (
    SELECT g.id, g.simulator, g.condition, g.point_id, coalesce(g.trial, 0) AS trial,
           g.error IS NOT NULL OR g.text IS NULL AS failed, coalesce(lg.move, '') AS move, lg.confidence
    FROM generations g
    LEFT JOIN labels lg ON lg.target = 'generation' AND lg.target_id = g.id AND lg.judge = $1
    WHERE g.window_n = $2 AND g.history_k = $3
)
SELECT s.simulator, s.condition, p.developer, p.id AS point_id, g.trial, p.real_move,
       coalesce(g.move, '') AS generated,
       coalesce(g.failed, true) AS failed,
       coalesce(NOT g.failed AND g.move = p.real_move, false) AS hit,
       g.point_id IS NOT NULL AS generated_here,
       g.id AS gen_id, g.confidence
FROM settings s
CROSS JOIN pts p
LEFT JOIN gens g ON g.simulator = s.simulator AND g.condition = s.condition AND g.point_id = p.id
ORDER BY p.developer, p.id, s.simulator, s.condition, g.trial NULLS FIRST
