-- heldout_moments: every moment in a held-out session of an eligible developer,
-- in the developer's time order.
SELECT e.developer, e.split, m.session_id, m.turn_idx, m.prior_turns
FROM moments m
JOIN session_roles r ON r.session_id = m.session_id AND r.role = 'heldout'
JOIN eligibility e ON e.developer = m.developer AND e.eligible
ORDER BY e.developer, r.ordinal, m.turn_idx
