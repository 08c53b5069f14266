-- label_generations: every generation with text, and the agent turn before its point.
SELECT g.id, g.text,
       coalesce((SELECT a.text FROM turns a WHERE a.session_id = p.session_id AND a.role = 'agent' AND a.idx < p.turn_idx
                 ORDER BY a.idx DESC LIMIT 1), '') AS prev_agent
FROM generations g JOIN points p ON p.id = g.point_id
WHERE g.error IS NULL AND g.text IS NOT NULL
ORDER BY g.id
