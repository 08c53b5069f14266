-- For each staged error (review_turn_stage.sql), by position: whether its
-- episode is stored, the episode's last turn (-1 without messages) and
-- whether turn_idx is one of its turns. The episodes' messages are read
-- only for the staged episodes.
WITH last_turn AS (
    SELECT m.simulation_id, max(m.turn_idx) AS last_turn
    FROM ep_messages m
    SEMI JOIN ub_review_turns t ON t.simulation_id = m.simulation_id
    GROUP BY m.simulation_id
), is_turn AS (
    SELECT DISTINCT m.simulation_id, m.turn_idx
    FROM ep_messages m
    SEMI JOIN ub_review_turns t ON t.simulation_id = m.simulation_id AND t.turn_idx = m.turn_idx
)
SELECT t.i,
       EXISTS (SELECT 1 FROM ep_episodes e WHERE e.simulation_id = t.simulation_id),
       coalesce(l.last_turn, -1),
       u.simulation_id IS NOT NULL
FROM ub_review_turns t
LEFT JOIN last_turn l ON l.simulation_id = t.simulation_id
LEFT JOIN is_turn u ON u.simulation_id = t.simulation_id AND u.turn_idx = t.turn_idx
ORDER BY t.i
