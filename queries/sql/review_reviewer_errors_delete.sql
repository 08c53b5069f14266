DELETE FROM rv_errors WHERE reviewer = ?
