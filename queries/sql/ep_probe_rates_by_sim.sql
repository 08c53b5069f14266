-- ep_probe_rates_by_sim: per user simulator and probe, n applicable and hits;
-- runs without a simulated user (solo mode) have none and are left out.
SELECT r.user_sim, a.probe, count(*) AS n, count(f.simulation_id) AS hits
FROM ep_probe_applicable a
JOIN ep_episodes e USING (simulation_id)
JOIN ep_runs r USING (run_id)
LEFT JOIN (SELECT DISTINCT simulation_id, probe FROM ep_probe_findings) f
       ON f.simulation_id = a.simulation_id AND f.probe = a.probe
WHERE NOT coalesce(r.no_user, false)
GROUP BY r.user_sim, a.probe
ORDER BY r.user_sim, a.probe
