-- simdata_turns: a session's turns up to and including a turn. Parameters: session id, turn index.
SELECT idx, role, text, is_command
FROM turns
WHERE session_id = ? AND idx <= ?
ORDER BY idx
