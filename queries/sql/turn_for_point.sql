-- turn_for_point: is (session, turn) a moment, and whose.
SELECT m.developer, coalesce(d.split, '') FROM moments m LEFT JOIN developer_splits d ON d.developer = m.developer
WHERE m.session_id = ? AND m.turn_idx = ?
