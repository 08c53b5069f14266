-- study_case_generations: the texts of one developer's ($1) generations at
-- live window $2 and history $3.
SELECT g.point_id, g.simulator, g.condition, coalesce(g.text, ''), coalesce(g.error, '')
FROM generations g
JOIN points p ON p.id = g.point_id
WHERE p.developer = $1 AND g.window_n = $2 AND g.history_k = $3
ORDER BY g.point_id, g.simulator, g.condition, g.id
