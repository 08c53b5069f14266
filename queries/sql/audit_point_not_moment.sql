SELECT 'point ' || pt.id || ' (session ' || pt.session_id || ' turn ' || pt.turn_idx || ') is not a moment'
FROM points pt LEFT JOIN moments m ON m.session_id = pt.session_id AND m.turn_idx = pt.turn_idx
WHERE m.session_id IS NULL ORDER BY 1
