-- The last revision of a reviewer's decision in the history, undone or not
-- (null: none yet): the next save is one more. Index on simulation_id
-- first, as in review_decision_get.
WITH e AS MATERIALIZED (SELECT * FROM rv_revisions WHERE simulation_id = ?)
SELECT max(r.revision) FROM e r WHERE r.reviewer = ?
