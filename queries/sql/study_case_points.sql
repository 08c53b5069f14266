-- study_case_points: one developer's ($1) points, with the agent's latest
-- turn before each and the real developer message.
SELECT p.id, p.prior_turns,
       coalesce((SELECT arg_max(a.text, a.idx) FROM turns a
                 WHERE a.session_id = p.session_id AND a.role = 'agent' AND a.idx < p.turn_idx), '') AS agent,
       coalesce(t.text, '') AS real_text
FROM points p
LEFT JOIN turns t ON t.session_id = p.session_id AND t.idx = p.turn_idx
WHERE p.developer = $1
ORDER BY p.id
