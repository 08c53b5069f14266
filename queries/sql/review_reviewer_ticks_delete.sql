DELETE FROM rv_error_ticks WHERE reviewer = ?
