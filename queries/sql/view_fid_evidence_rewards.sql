-- view_fid_evidence_rewards: view_fid_episode of each episode $1 names (a
-- JSON array of simulation ids), with its id first.
SELECT e.simulation_id, e.reward, coalesce(CAST(e.reward_basis AS VARCHAR), ''), coalesce(CAST(e.reward_breakdown AS VARCHAR), ''),
       e.db_match, r.user_sim, r.agent
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
WHERE e.simulation_id IN (SELECT unnest(from_json($1::JSON, '["VARCHAR"]')))
ORDER BY e.simulation_id
