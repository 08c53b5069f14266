DELETE FROM labels WHERE judge = ?
