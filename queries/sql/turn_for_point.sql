-- turn_for_point: is (session, turn) a moment, whose, in which split, in a
-- held-out session, and is its developer eligible.
SELECT m.developer, coalesce(d.split, ''), coalesce(r.role, ''), coalesce(e.eligible, false)
FROM moments m
LEFT JOIN developer_splits d ON d.developer = m.developer
LEFT JOIN session_roles r ON r.session_id = m.session_id
LEFT JOIN eligibility e ON e.developer = m.developer
WHERE m.session_id = ? AND m.turn_idx = ?
