-- simdata_profile_pairs: (agent turn, developer reply) pairs of one
-- developer's PROFILE sessions: every moment (a developer turn, not a
-- command, after an agent turn) with the latest agent turn before it.
-- Parameter: developer.
WITH reply AS (
    SELECT r.developer, t.session_id, t.idx, t.text
    FROM turns t
    JOIN session_roles r ON r.session_id = t.session_id
    WHERE r.role = 'profile' AND r.developer = ?
      AND t.role = 'developer' AND NOT t.is_command
), agent AS (
    SELECT session_id, idx, text FROM turns WHERE role = 'agent'
)
SELECT reply.developer, reply.session_id, agent.idx, agent.text, reply.idx, reply.text
FROM reply
ASOF JOIN agent ON agent.session_id = reply.session_id AND reply.idx > agent.idx
ORDER BY reply.session_id, reply.idx
