-- label_points: the real developer message at every frozen point, and the
-- agent turn right before it ('' when none).
SELECT p.id, t.text,
       coalesce((SELECT a.text FROM turns a WHERE a.session_id = p.session_id AND a.role = 'agent' AND a.idx < p.turn_idx
                 ORDER BY a.idx DESC LIMIT 1), '') AS prev_agent
FROM points p JOIN turns t ON t.session_id = p.session_id AND t.idx = p.turn_idx
ORDER BY p.id
