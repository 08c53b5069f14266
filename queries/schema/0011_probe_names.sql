-- 0011: ep_probe_findings accepts any probe name. The probes are a registry
-- in analysis (one file per probe); the schema no longer lists them, so
-- adding a probe needs no migration. DuckDB cannot drop a CHECK constraint:
-- the table is rebuilt, its rows kept.
CREATE TEMP TABLE ep_probe_findings_0011 AS SELECT * FROM ep_probe_findings;
DROP TABLE ep_probe_findings;
CREATE TABLE ep_probe_findings (
    simulation_id VARCHAR NOT NULL,
    probe         VARCHAR NOT NULL,
    turn_idx      INTEGER,
    evidence      VARCHAR NOT NULL,
    detail        JSON
);
INSERT INTO ep_probe_findings SELECT * FROM ep_probe_findings_0011;
DROP TABLE ep_probe_findings_0011;
