-- Whether an episode is stored, its last turn (-1 without messages) and
-- whether turn is one of its turns: what an imported review error's
-- turn_idx is checked against.
SELECT
    EXISTS (SELECT 1 FROM ep_episodes WHERE simulation_id = $1),
    coalesce((SELECT max(turn_idx) FROM ep_messages WHERE simulation_id = $1), -1),
    EXISTS (SELECT 1 FROM ep_messages WHERE simulation_id = $1 AND turn_idx = $2)
