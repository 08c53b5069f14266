DELETE FROM sessions WHERE id = ?
