-- Where an episode is in a reviewer's queue: its position (null: not in
-- it), the episodes before and after it ('' : none) and the queue's length.
WITH a AS (
    SELECT position, simulation_id FROM rv_assignments WHERE batch = ? AND reviewer = ?
), me AS (
    SELECT position FROM a WHERE simulation_id = ?
)
SELECT (SELECT position FROM me),
       coalesce((SELECT arg_max(simulation_id, position) FROM a WHERE position < (SELECT position FROM me)), ''),
       coalesce((SELECT arg_min(simulation_id, position) FROM a WHERE position > (SELECT position FROM me)), ''),
       (SELECT count(*) FROM a)
