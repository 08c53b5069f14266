-- view_review_decisions: every reviewer's standing decision on episode $1
-- (people, LLM reviewers and the adjudicator) with each simulator error it
-- records (one row per error; a decision without errors once, with NULL
-- error fields): reviewer, kind, outcome, revision, and the error's turn
-- (NULL: the episode as a whole), code, severity and note. By kind
-- (adjudicator last), reviewer, error.
SELECT d.reviewer, d.kind, d.outcome, d.revision, x.idx, x.turn_idx, coalesce(x.code, ''),
       coalesce(x.severity, ''), coalesce(x.note, '')
FROM rv_decisions d
LEFT JOIN rv_errors x ON x.simulation_id = d.simulation_id AND x.reviewer = d.reviewer
WHERE d.simulation_id = $1
ORDER BY d.kind = 'adjudicator', d.kind, d.reviewer, x.idx NULLS FIRST
