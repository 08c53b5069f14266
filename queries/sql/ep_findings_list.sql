-- ep_findings_list: every finding with its episode's file and simulator; ? = '' for all probes.
SELECT f.simulation_id, e.source_file, r.user_sim, f.probe, f.turn_idx, f.evidence, CAST(f.detail AS VARCHAR)
FROM ep_probe_findings f
JOIN ep_episodes e USING (simulation_id)
JOIN ep_runs r USING (run_id)
WHERE ? = '' OR f.probe = ?
ORDER BY f.simulation_id, f.probe, f.turn_idx NULLS FIRST, f.evidence, CAST(f.detail AS VARCHAR)
