-- 0019: ep_verdicts without its primary key. DuckDB keeps a primary key's
-- index whole in memory (about 60 bytes a key), and a commit that writes
-- the table needs it whole: at a million episodes (5.9 million verdicts)
-- the index alone took ub verdicts import past 3 GiB whatever its
-- memory_limit. A (simulation, criterion, grader) is still stored at most
-- once: every writer deletes the stored verdicts of the keys it writes,
-- then inserts, in one transaction, by joins DuckDB can spill
-- (fidelity_stage_delete.sql, fidelity_delete_verdicts.sql), and refuses a
-- key given twice (fidelity_stage_check.sql, fidelity_put_repeat.sql).
-- DuckDB cannot drop a primary key: the table is made again, its columns
-- and their order, types and checks as 0007 made them, and its rows kept.
CREATE TABLE ep_verdicts_0019 (
    simulation_id VARCHAR NOT NULL,
    criterion_id  VARCHAR NOT NULL,
    grader        VARCHAR NOT NULL,
    verdict       VARCHAR NOT NULL CHECK (verdict IN ('pass', 'fail', 'na')),
    turn_idx      INTEGER,
    reason        VARCHAR,
    prompt_version VARCHAR,                 -- ub grade's prompt version; null for imports
    request_key   VARCHAR,                  -- ub grade's response-cache key; null for imports
    source_file   VARCHAR NOT NULL,
    source_line   INTEGER NOT NULL
);
INSERT INTO ep_verdicts_0019 SELECT * FROM ep_verdicts;
DROP TABLE ep_verdicts;
ALTER TABLE ep_verdicts_0019 RENAME TO ep_verdicts;
