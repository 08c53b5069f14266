-- The last stored revision of a reviewer's decision (null: none yet).
SELECT max(d.revision) FROM rv_decisions d WHERE d.simulation_id = ? AND d.reviewer = ?
