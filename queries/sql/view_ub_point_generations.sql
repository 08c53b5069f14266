-- view_ub_point_generations: every generation at point $2 at live window
-- $3 and history $4, of every simulator under every condition and trial,
-- with the move judge $1 gave it ('' when unlabelled), its confidence,
-- failed (an error or no text) and the error ('' when none).
SELECT g.simulator, g.condition, coalesce(g.trial, 0) AS trial, coalesce(g.text, ''),
       coalesce(g.error, ''), g.error IS NOT NULL OR g.text IS NULL AS failed,
       coalesce(l.move, ''), l.confidence
FROM generations g
LEFT JOIN labels l ON l.target = 'generation' AND l.target_id = g.id AND l.judge = $1
WHERE g.point_id = $2 AND g.window_n = $3 AND g.history_k = $4
ORDER BY g.simulator, g.condition, trial, g.id
