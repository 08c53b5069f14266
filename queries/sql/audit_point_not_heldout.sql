SELECT 'point ' || pt.id || ' lies in ' || coalesce(r.role || ' session ', 'unknown session ') || pt.session_id
FROM points pt LEFT JOIN session_roles r ON r.session_id = pt.session_id
WHERE r.role IS DISTINCT FROM 'heldout' ORDER BY 1
