DELETE FROM rv_decisions WHERE reviewer = ?
