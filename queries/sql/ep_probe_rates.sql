-- ep_probe_rates: per result file and probe, n applicable and hits.
SELECT source_file, user_sim, domain, probe, n, hits
FROM probe_rates
ORDER BY source_file, probe, user_sim, domain
