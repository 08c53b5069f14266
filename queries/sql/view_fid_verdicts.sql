-- view_fid_verdicts: every verdict grader $1 gave episode $2, with its
-- criterion (family, mode, text, the quote it rests on; '' for a verdict
-- whose criterion is not in the rubric), the user turn it names (NULL:
-- none) and the reason; failures first, then by criterion.
SELECT v.criterion_id, coalesce(c.family, ''), coalesce(c.mode, ''), coalesce(c.text, ''),
       coalesce(c.quote, ''), coalesce(c.status, ''), v.verdict, v.turn_idx, coalesce(v.reason, '')
FROM ep_verdicts v
LEFT JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id
WHERE v.simulation_id = $2 AND v.grader = $1
ORDER BY v.verdict <> 'fail', v.criterion_id
