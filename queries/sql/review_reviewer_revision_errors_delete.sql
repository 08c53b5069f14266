DELETE FROM rv_revision_errors WHERE reviewer = ?
