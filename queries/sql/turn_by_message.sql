-- turn_by_message: the developer turns of a repository's session started at a
-- time whose text is the message, compared without whitespace (exports
-- re-indent lines) and as a prefix (exports cut long messages); exact
-- matches first, so a short message never takes a longer turn it begins.
SELECT t.session_id, t.idx, coalesce(p.id, '') AS point_id
FROM sessions s JOIN turns t ON t.session_id = s.id
LEFT JOIN points p ON p.session_id = t.session_id AND p.turn_idx = t.idx
WHERE s.repo = $1 AND s.started_at = CAST($2 AS TIMESTAMP) AND t.role = 'developer'
  AND starts_with(regexp_replace(t.text, '\s+', '', 'g'), regexp_replace($3, '\s+', '', 'g'))
ORDER BY regexp_replace(t.text, '\s+', '', 'g') = regexp_replace($3, '\s+', '', 'g') DESC, t.session_id, t.idx
