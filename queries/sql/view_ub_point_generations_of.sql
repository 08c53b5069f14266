-- view_ub_point_generations_of: view_ub_point_generations at each setting
-- $2 names (a JSON array of {"point", "n", "k"}: a batch of the published
-- site's moment pages), with the setting first; judge $1.
WITH want AS (
    SELECT DISTINCT w.point, w.n, w.k
    FROM (SELECT unnest(from_json($2::JSON, '[{"point": "VARCHAR", "n": "INTEGER", "k": "INTEGER"}]'), recursive := true)) w
)
SELECT w.point, w.n, w.k, g.simulator, g.condition, coalesce(g.trial, 0) AS trial, coalesce(g.text, ''),
       coalesce(g.error, ''), g.error IS NOT NULL OR g.text IS NULL AS failed,
       coalesce(l.move, ''), l.confidence
FROM want w
JOIN generations g ON g.point_id = w.point AND g.window_n = w.n AND g.history_k = w.k
LEFT JOIN labels l ON l.target = 'generation' AND l.target_id = g.id AND l.judge = $1
ORDER BY w.point, w.n, w.k, g.simulator, g.condition, trial, g.id
