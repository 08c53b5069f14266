-- study_case_generations: the texts of one developer's ($1) generations at
-- live window $2 and history $3, with the move judge $4 gave each ('' when
-- unlabelled) and whether it failed (an error, or no text); of a setting
-- with trials, the first trial's.
SELECT g.point_id, g.simulator, g.condition, coalesce(g.text, ''), coalesce(g.error, ''),
       coalesce(l.move, '') AS move,
       g.error IS NOT NULL OR g.text IS NULL AS failed
FROM generations g
JOIN points p ON p.id = g.point_id
LEFT JOIN labels l ON l.target = 'generation' AND l.target_id = g.id AND l.judge = $4
WHERE p.developer = $1 AND g.window_n = $2 AND g.history_k = $3 AND coalesce(g.trial, 0) = 0
ORDER BY g.point_id, g.simulator, g.condition, g.id
