-- simdata_train_pairs: (agent turn, developer reply) pairs, as
-- simdata_profile_pairs, of the PROFILE sessions of every train-split
-- developer. A developer also placed in another split (an audit finding) is
-- left out, so a broken split cannot leak val or test text into the pool.
WITH reply AS (
    SELECT r.developer, t.session_id, t.idx, t.text
    FROM turns t
    JOIN session_roles r ON r.session_id = t.session_id
    WHERE r.role = 'profile'
      AND r.developer IN (SELECT developer FROM developer_splits WHERE split = 'train')
      AND r.developer NOT IN (SELECT developer FROM developer_splits WHERE split <> 'train')
      AND t.role = 'developer' AND NOT t.is_command
), agent AS (
    SELECT session_id, idx, text FROM turns WHERE role = 'agent'
)
SELECT reply.developer, reply.session_id, agent.idx, agent.text, reply.idx, reply.text
FROM reply
ASOF JOIN agent ON agent.session_id = reply.session_id AND reply.idx > agent.idx
ORDER BY reply.session_id, reply.idx
