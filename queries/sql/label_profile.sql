-- label_profile: the moments of PROFILE sessions (a developer turn, not a
-- command, after an agent turn) of every developer with frozen points,
-- with the agent turn right before each: what a judge labels so that the
-- chance and majority lines can be read from data the scoring never sees.
-- The id is the turn's target id (queries.TurnTargetID: session id, '#',
-- turn index); the labels are stored with target 'message'.
WITH devs AS (SELECT DISTINCT developer FROM points),
prof AS (
    SELECT t.session_id, t.idx, t.text
    FROM turns t
    JOIN session_roles r ON r.session_id = t.session_id AND r.role = 'profile'
    WHERE r.developer IN (SELECT developer FROM devs)
      AND t.role = 'developer' AND NOT t.is_command
),
agent AS (SELECT session_id, idx, text FROM turns WHERE role = 'agent')
SELECT prof.session_id || '#' || prof.idx::VARCHAR AS id, prof.text, agent.text AS prev_agent
FROM prof
ASOF JOIN agent ON agent.session_id = prof.session_id AND prof.idx > agent.idx
ORDER BY id
