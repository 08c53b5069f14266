-- publish: every grader's verdict per (episode, criterion).
SELECT * FROM verdicts ORDER BY simulation_id, criterion_id, grader
