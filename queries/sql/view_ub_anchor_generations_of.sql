-- view_ub_anchor_generations_of: view_ub_point_anchor of each point $1
-- names (a JSON array of point ids: a batch of the published site's moment
-- pages), each generation with its text and error as
-- view_ub_generation_texts_of reads them ('' when none); by point, then as
-- view_ub_point_anchor.
SELECT m.point_id, m.simulator, m.condition, m.trial, m.failed, m.generated, m.confidence,
       coalesce(g.text, ''), coalesce(g.error, '')
FROM ub_view_moments m
LEFT JOIN generations g ON g.id = m.gen_id
WHERE m.point_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]'))) AND m.generated_here
ORDER BY m.point_id, m.simulator, m.condition, m.trial, m.gen_id
