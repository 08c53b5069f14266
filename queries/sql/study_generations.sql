-- study_generations: every generation at a frozen point, one by one (the
-- report reads the aggregates of study_settings, study_outcomes and
-- study_lengths instead; this is for studies examined per generation), with the move judge
-- $1 gave it ('' when unlabelled), whether it failed (an error, or no text),
-- its text (counted in Go: a regular expression per row costs more than
-- the transfer), tokens and cost. No ORDER BY, on purpose: sorting carries
-- every text and costs more than the rest of the report at scale; the
-- report puts each setting's generations in point order itself, so its
-- output does not depend on the order of these rows.
SELECT g.point_id, g.simulator, g.condition, g.window_n, g.history_k,
       coalesce(l.move, '') AS move,
       g.error IS NOT NULL OR g.text IS NULL AS failed,
       coalesce(g.text, '') AS text,
       coalesce(g.tokens_in, 0), coalesce(g.tokens_out, 0), coalesce(g.cost, 0),
       coalesce(g.trial, 0) AS trial
FROM generations g
JOIN points p ON p.id = g.point_id
LEFT JOIN labels l ON l.target = 'generation' AND l.target_id = g.id AND l.judge = $1
