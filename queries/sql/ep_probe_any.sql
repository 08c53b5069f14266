-- Whether any probe result is stored (StageProbeResults).
SELECT EXISTS (SELECT 1 FROM ep_probe_findings) OR EXISTS (SELECT 1 FROM ep_probe_applicable)
