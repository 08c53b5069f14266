DELETE FROM turns WHERE session_id = ?
