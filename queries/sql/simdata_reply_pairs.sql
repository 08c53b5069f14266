-- simdata_reply_pairs: (agent turn, developer reply) pairs of PROFILE
-- sessions: every moment (a developer turn, not a command, after an agent
-- turn) with the latest agent turn before it. The two pools of an offline
-- simulator are one query with a parameter:
-- $1 a developer: that developer's profile sessions (the pool with the
--    profile);
-- $1 NULL: the profile sessions of every train-split developer (the pool
--    without). A developer also placed in another split (an audit finding)
--    is left out, so a broken split cannot leak val or test text into it.
WITH reply AS (
    SELECT r.developer, t.session_id, t.idx, t.text
    FROM turns t
    JOIN session_roles r ON r.session_id = t.session_id
    WHERE r.role = 'profile'
      AND CASE WHEN $1::VARCHAR IS NULL
               THEN r.developer IN (SELECT developer FROM developer_splits WHERE split = 'train')
                AND r.developer NOT IN (SELECT developer FROM developer_splits WHERE split <> 'train')
               ELSE r.developer = $1::VARCHAR END
      AND t.role = 'developer' AND NOT t.is_command
), agent AS (
    SELECT session_id, idx, text FROM turns WHERE role = 'agent'
)
SELECT reply.developer, reply.session_id, agent.idx, agent.text, reply.idx, reply.text
FROM reply
ASOF JOIN agent ON agent.session_id = reply.session_id AND reply.idx > agent.idx
ORDER BY reply.session_id, reply.idx
