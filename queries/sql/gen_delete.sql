DELETE FROM generations WHERE id = ?
