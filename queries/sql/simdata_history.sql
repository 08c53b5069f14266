-- simdata_history: a developer's most recent messages (developer turns, not
-- commands) from their PROFILE sessions only, most recent first (sessions by
-- time-split ordinal, then turns). Parameters: developer, limit.
SELECT t.session_id, t.idx, t.text
FROM turns t
JOIN session_roles r ON r.session_id = t.session_id
WHERE r.role = 'profile' AND r.developer = ?
  AND t.role = 'developer' AND NOT t.is_command
ORDER BY r.ordinal DESC, t.idx DESC
LIMIT ?
