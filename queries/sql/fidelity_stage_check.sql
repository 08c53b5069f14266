-- The staged verdicts the workspace refuses, one row per line, with what
-- the refusal names: first_line, the earlier line of the same (simulation,
-- criterion, grader) (NULL: not a repeat); whether the criterion and the
-- episode are stored and their tasks; the episode's last turn (-1 without
-- messages) and whether turn_idx is a turn of the user. A repeat is not
-- checked further. The episodes' turns are read only for the fails.
CREATE OR REPLACE TEMP TABLE ub_verdict_refused AS
WITH repeat AS ( -- a hash given twice: few, if any, so the keys are compared only there
    SELECT hash(simulation_id, criterion_id, grader) AS h
    FROM ub_verdict_stage
    GROUP BY h
    HAVING count(*) > 1
), dup AS (
    SELECT simulation_id, criterion_id, grader, min(line) AS first_line
    FROM ub_verdict_stage
    SEMI JOIN repeat ON repeat.h = hash(simulation_id, criterion_id, grader)
    GROUP BY simulation_id, criterion_id, grader
    HAVING count(*) > 1
), staged AS (
    SELECT s.line, s.simulation_id, s.criterion_id, s.grader, s.turn_idx,
           CASE WHEN s.line > d.first_line THEN d.first_line END AS first_line
    FROM ub_verdict_stage s
    LEFT JOIN dup d USING (simulation_id, criterion_id, grader)
), turns AS (
    SELECT DISTINCT simulation_id, turn_idx FROM staged WHERE turn_idx IS NOT NULL AND first_line IS NULL
), last_turn AS (
    SELECT m.simulation_id, max(m.turn_idx) AS last_turn
    FROM ep_messages m
    SEMI JOIN (SELECT DISTINCT simulation_id FROM turns) t ON t.simulation_id = m.simulation_id
    GROUP BY m.simulation_id
), user_turn AS (
    SELECT DISTINCT m.simulation_id, m.turn_idx
    FROM ep_messages m
    SEMI JOIN turns t ON t.simulation_id = m.simulation_id AND t.turn_idx = m.turn_idx
    WHERE m.role = 'user'
), checked AS (
    SELECT s.line, s.first_line, s.simulation_id, s.criterion_id, s.grader, s.turn_idx,
           r.criterion_id IS NOT NULL AS criterion_known, e.simulation_id IS NOT NULL AS episode_known,
           r.domain AS criterion_domain, r.task_id AS criterion_task,
           e.domain AS episode_domain, e.task_id AS episode_task,
           coalesce(l.last_turn, -1) AS last_turn, u.simulation_id IS NOT NULL AS user_turn
    FROM staged s
    LEFT JOIN ep_rubric_criteria r ON r.criterion_id = s.criterion_id
    LEFT JOIN ep_episodes e ON e.simulation_id = s.simulation_id
    LEFT JOIN last_turn l ON l.simulation_id = s.simulation_id
    LEFT JOIN user_turn u ON u.simulation_id = s.simulation_id AND u.turn_idx = s.turn_idx
)
SELECT * FROM checked
WHERE first_line IS NOT NULL OR NOT criterion_known OR NOT episode_known
   OR criterion_domain <> episode_domain OR criterion_task <> episode_task
   OR (turn_idx IS NOT NULL AND (turn_idx > last_turn OR NOT user_turn))
