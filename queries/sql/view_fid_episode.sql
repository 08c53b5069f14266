-- view_fid_episode: the reward of episode $1 with its basis and breakdown
-- (JSON as stored, '' when none), whether the database matched (NULL:
-- not recorded) and the user simulator and agent of its run.
SELECT e.reward, coalesce(CAST(e.reward_basis AS VARCHAR), ''), coalesce(CAST(e.reward_breakdown AS VARCHAR), ''),
       e.db_match, r.user_sim, r.agent
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
WHERE e.simulation_id = $1
ORDER BY e.simulation_id
