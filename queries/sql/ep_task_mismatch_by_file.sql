-- ep_task_mismatch_by_file: per result file, the episodes flagged by P0
-- (the hits of probe_rates for P0, without the applicability join).
SELECT e.source_file, count(DISTINCT f.simulation_id) AS hits
FROM ep_probe_findings f
JOIN ep_episodes e USING (simulation_id)
WHERE f.probe = 'P0'
GROUP BY e.source_file
ORDER BY e.source_file
