-- simdata_profile_messages: the messages (developer turns, not commands) of
-- PROFILE sessions, of one developer or, with '', of all, in each developer's
-- time order. Parameters: developer, developer.
SELECT r.developer, t.session_id, r.ordinal, t.idx, t.text
FROM turns t
JOIN session_roles r ON r.session_id = t.session_id
WHERE r.role = 'profile' AND (? = '' OR r.developer = ?)
  AND t.role = 'developer' AND NOT t.is_command
ORDER BY r.developer, r.ordinal, t.idx
