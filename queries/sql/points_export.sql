SELECT id, developer, split, session_id, turn_idx, prior_turns, constant_dose
FROM points ORDER BY developer, id
