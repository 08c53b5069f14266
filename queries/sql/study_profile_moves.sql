-- study_profile_moves: the moves judge $1 gave the moments of the PROFILE
-- sessions of every developer with frozen points (label_profile: target
-- 'message', id session id '#' turn index), counted per developer and
-- move; 'unparseable' left out. The chance and majority lines are formed
-- from these, never from the held-out moments they are scored on.
WITH prof AS (
    SELECT r.developer, t.session_id || '#' || t.idx::VARCHAR AS id
    FROM turns t
    JOIN session_roles r ON r.session_id = t.session_id AND r.role = 'profile'
    WHERE r.developer IN (SELECT DISTINCT developer FROM points)
      AND t.role = 'developer' AND NOT t.is_command
)
SELECT prof.developer, l.move, count(*) AS n
FROM prof
JOIN labels l ON l.target = 'message' AND l.target_id = prof.id AND l.judge = $1
WHERE l.move NOT IN ('', 'unparseable')
GROUP BY ALL
ORDER BY prof.developer, l.move
