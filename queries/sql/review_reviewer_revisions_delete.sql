DELETE FROM rv_revisions WHERE reviewer = ?
