SELECT target_id FROM labels WHERE judge = ? AND target = ? ORDER BY target_id
