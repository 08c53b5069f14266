-- eligibility: val and test developers through the funnel: >= min_sessions sessions,
-- >= min_heldout held-out sessions, >= min_moments held-out moments. A session
-- counts only when it holds at least one developer message that is not a
-- command: a session of slash commands alone says nothing of how its
-- developer talks (and gives a profile nothing to learn from).
-- Parameters: min_sessions, min_heldout, min_moments (twice each where used).
INSERT INTO eligibility
WITH spoken AS (
    SELECT DISTINCT session_id FROM turns WHERE role = 'developer' AND NOT is_command
), c AS (
    SELECT d.developer, d.split,
           count(s.session_id) AS sessions,
           count(s.session_id) FILTER (WHERE r.role = 'heldout') AS heldout_sessions,
           coalesce((SELECT count(*) FROM moments m JOIN session_roles h ON h.session_id = m.session_id
                     WHERE h.role = 'heldout' AND m.developer = d.developer), 0) AS heldout_moments
    FROM developer_splits d
    LEFT JOIN session_roles r ON r.developer = d.developer
    LEFT JOIN spoken s ON s.session_id = r.session_id
    WHERE d.split IN ('val', 'test')
    GROUP BY d.developer, d.split
)
SELECT developer, split, sessions, heldout_sessions, heldout_moments,
       sessions >= $1 AND heldout_sessions >= $2 AND heldout_moments >= $3,
       CASE WHEN sessions < $1 THEN 'sessions'
            WHEN heldout_sessions < $2 THEN 'heldout_sessions'
            WHEN heldout_moments < $3 THEN 'heldout_moments' END
FROM c
