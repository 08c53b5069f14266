-- publish: the user-fidelity rubric criteria, with their writer and verifier.
SELECT * FROM rubric_criteria ORDER BY criterion_id
