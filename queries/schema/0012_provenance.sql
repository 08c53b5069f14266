-- 0011: where a workspace's data came from. A row per command that wrote
-- made-up data into it (ub synth, ub demo): maker is the command
-- ('ub synth --study userbench', 'ub demo'), detail its settings
-- ('seed 1, scale 1'). A workspace with no row holds what the user
-- ingested and imported. Reports drawn from a workspace with a row carry a
-- "synthetic data" mark on every figure and in the title.
CREATE TABLE provenance (
    maker  VARCHAR PRIMARY KEY,
    detail VARCHAR NOT NULL
);
