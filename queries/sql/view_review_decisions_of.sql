-- view_review_decisions_of: every reviewer's standing decision on each of
-- the episodes $1 names (a JSON array of simulation ids: one page of the
-- reviewed episodes), with its errors, as view_review_decisions gives one
-- episode's: by episode, then people before the adjudicator, kind,
-- reviewer and the error's index. One query for a page, not one a row.
SELECT d.simulation_id, d.reviewer, d.kind, d.outcome, d.revision, x.idx, x.turn_idx, coalesce(x.code, ''),
       coalesce(x.severity, ''), coalesce(x.note, '')
FROM rv_decisions d
LEFT JOIN rv_errors x ON x.simulation_id = d.simulation_id AND x.reviewer = d.reviewer
WHERE d.simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY d.simulation_id, d.kind = 'adjudicator', d.kind, d.reviewer, x.idx NULLS FIRST
