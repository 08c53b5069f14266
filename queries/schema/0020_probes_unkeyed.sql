-- 0020: ep_probe_applicable without its primary key. The key's index must
-- be held whole in memory to insert or delete a row, so ub probes' memory
-- grew with the workspace (1.5 GiB at a million episodes) whatever
-- --memory-limit said. Every writer now keeps one row per (episode,
-- probe) itself: ingest deletes an episode's rows before it writes the
-- episode again, ub probes replaces the rows of the episodes whose results
-- changed (ep_probe_changed_applicable.sql). DuckDB cannot drop a primary
-- key: the table is made again and its rows copied.
CREATE TABLE ep_probe_applicable_0020 (
    simulation_id VARCHAR NOT NULL,
    probe         VARCHAR NOT NULL
);
INSERT INTO ep_probe_applicable_0020 SELECT simulation_id, probe FROM ep_probe_applicable;
DROP TABLE ep_probe_applicable;
ALTER TABLE ep_probe_applicable_0020 RENAME TO ep_probe_applicable;
