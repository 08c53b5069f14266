-- The refused staged verdicts (fidelity_stage_check.sql), by line.
SELECT line, first_line, simulation_id, criterion_id, grader, turn_idx, criterion_known, episode_known,
       coalesce(criterion_domain, ''), coalesce(criterion_task, ''), coalesce(episode_domain, ''), coalesce(episode_task, ''),
       last_turn, user_turn
FROM ub_verdict_refused
ORDER BY line
