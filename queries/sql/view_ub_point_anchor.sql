-- view_ub_point_anchor: every generation at point $1 of developer $2 (the
-- developer narrows the rows read) at the anchor
-- setting, from ub_view_moments (view_ub_warm): simulator, condition,
-- trial, the generation's id, failed, the judge's move ('' when
-- unlabelled) and confidence; the texts are read by id.
SELECT simulator, condition, trial, gen_id, failed, generated, confidence
FROM ub_view_moments
WHERE developer = $2 AND point_id = $1 AND generated_here
ORDER BY simulator, condition, trial, gen_id
