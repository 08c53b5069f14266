DELETE FROM labels WHERE judge = ? AND target = ?
