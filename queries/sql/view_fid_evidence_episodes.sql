-- view_fid_evidence_episodes: review_episode of each episode $1 names (a
-- JSON array of simulation ids: a batch of the published site's episode
-- pages), with its id first.
WITH e AS MATERIALIZED (
    SELECT * FROM ep_episodes
    WHERE simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]'))))
SELECT e.simulation_id, e.domain, e.task_id, e.trial, e.reward, coalesce(e.termination_reason, ''),
       r.user_sim, r.agent,
       coalesce(t.reason_for_call, ''), coalesce(t.known_info, ''), coalesce(t.unknown_info, ''),
       coalesce(t.task_instructions, ''), coalesce(t.persona, ''), coalesce(t.instruction, ''),
       coalesce(r.guidelines, '')
FROM e
JOIN ep_runs r USING (run_id)
LEFT JOIN ep_tasks t ON t.task_key = e.task_key
ORDER BY e.simulation_id
