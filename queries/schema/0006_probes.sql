-- 0006: which episodes each judge-free probe (SPEC 6.3) applies to, so a
-- probe's rate has its denominator, and the P0 flag every fidelity analysis
-- must honour (an episode that does not belong to its task is kept out).

-- ep_probe_applicable: one row per (episode, probe) the probe was run on and
-- applies to (P2: the task has a gold user action; P6: the user made a tool
-- call; ...). Rewritten with ep_probe_findings by ub probes and ub ingest.
CREATE TABLE ep_probe_applicable (
    simulation_id VARCHAR NOT NULL,
    probe         VARCHAR NOT NULL,
    PRIMARY KEY (simulation_id, probe)
);

-- episode_flags: task_mismatch is true for an episode flagged by P0.
CREATE VIEW episode_flags AS
SELECT e.simulation_id,
       EXISTS (SELECT 1 FROM ep_probe_findings f
               WHERE f.simulation_id = e.simulation_id AND f.probe = 'P0') AS task_mismatch
FROM ep_episodes e;

-- probe_rates: per result file and probe, the episodes the probe applies to
-- (n) and those with at least one finding (hits).
CREATE VIEW probe_rates AS
SELECT e.source_file, r.user_sim, e.domain, a.probe, count(*) AS n,
       count(f.simulation_id) AS hits
FROM ep_probe_applicable a
JOIN ep_episodes e USING (simulation_id)
JOIN ep_runs r USING (run_id)
LEFT JOIN (SELECT DISTINCT simulation_id, probe FROM ep_probe_findings) f
       ON f.simulation_id = a.simulation_id AND f.probe = a.probe
GROUP BY e.source_file, r.user_sim, e.domain, a.probe;
