SELECT 'point ' || pt.id || ' belongs to developer ' || pt.developer || ', who is not an eligible val or test developer'
FROM points pt LEFT JOIN eligibility e ON e.developer = pt.developer
WHERE NOT coalesce(e.eligible, false) ORDER BY 1
