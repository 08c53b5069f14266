-- Per grader and failure mode (the mode of accepted criteria): the
-- episodes failing a criterion of the mode and the failing verdicts, and
-- one example: the first failing verdict (by simulation, criterion and
-- message index) whose failing user turn has text, with that text.
WITH f AS (
    SELECT v.grader, c.mode, c.family, v.simulation_id, v.criterion_id, v.turn_idx, c.text
    FROM ep_verdicts v
    JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id AND c.status = 'accepted'
    WHERE v.verdict = 'fail'
), n AS (
    SELECT grader, mode, count(DISTINCT simulation_id) AS episodes, count(*) AS verdicts
    FROM f
    GROUP BY grader, mode
), ex AS (
    SELECT f.grader, f.mode, f.family, f.simulation_id, f.criterion_id, f.text, f.turn_idx, m.content,
           row_number() OVER (PARTITION BY f.grader, f.mode ORDER BY f.simulation_id, f.criterion_id, m.idx) AS rn
    FROM f
    JOIN ep_messages m ON m.simulation_id = f.simulation_id AND m.turn_idx = f.turn_idx
         AND m.role = 'user' AND coalesce(m.content, '') <> ''
)
SELECT n.grader, n.mode, n.episodes, n.verdicts,
       coalesce(ex.family, ''), coalesce(ex.simulation_id, ''), coalesce(ex.criterion_id, ''),
       coalesce(ex.text, ''), coalesce(ex.turn_idx, -1), coalesce(ex.content, '')
FROM n
LEFT JOIN ex ON ex.grader = n.grader AND ex.mode = n.mode AND ex.rn = 1
ORDER BY n.grader, n.mode
