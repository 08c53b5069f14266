-- The episodes whose staged applicability rows (temp.ub_probe_applicable,
-- one per key) differ from the stored ones: a key stored and staged a
-- different number of times (stored not staged, staged not stored, or
-- stored twice). The table has no key (0020): this is what keeps one row
-- per key. One aggregate over both tables, counted by key: at a million
-- episodes two anti-joins (NOT EXISTS each way) took DuckDB to 1.1 GB
-- with a limit of 512 MiB, the aggregate to 650 MB.
CREATE OR REPLACE TEMP TABLE ub_probe_changed_applicable AS
SELECT DISTINCT simulation_id
FROM (
    SELECT simulation_id, probe, count(*) FILTER (WHERE stored) AS s, count(*) FILTER (WHERE NOT stored) AS n
    FROM (SELECT simulation_id, probe, true AS stored FROM ep_probe_applicable
          UNION ALL
          SELECT simulation_id, probe, false AS stored FROM temp.ub_probe_applicable)
    GROUP BY simulation_id, probe
)
WHERE s <> n
