-- Withdraw one revision (an undo); it stays in the history.
UPDATE rv_revisions SET undone_at = ? WHERE simulation_id = ? AND reviewer = ? AND revision = ?
