-- The last revision of a reviewer's decision in the history, undone or not
-- (null: none yet): the next save is one more.
SELECT max(r.revision) FROM rv_revisions r WHERE r.simulation_id = ? AND r.reviewer = ?
