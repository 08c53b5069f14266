SELECT 'developer ' || p.developer || ': profile session ' || p.session_id || ' starts after held-out session ' || h.session_id
FROM session_roles p
JOIN session_roles h ON h.developer = p.developer AND h.role = 'heldout'
JOIN sessions ps ON ps.id = p.session_id
JOIN sessions hs ON hs.id = h.session_id
WHERE p.role = 'profile' AND (ps.started_at > hs.started_at OR p.ordinal > h.ordinal)
ORDER BY 1
