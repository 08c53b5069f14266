-- 0015: the review workbench as annotation tools have it: the time spent on
-- each decision, every earlier revision kept (undo), explicit skips, and LLM
-- reviews shown as a pre-fill only when the batch says so. Written to run
-- again harmlessly on a workspace that has it (IF NOT EXISTS, OR IGNORE).

-- rv_batches.prefill: the LLM reviewer whose decisions pre-fill the form of
-- an episode a reviewer has not decided yet ('' : none, the default).
ALTER TABLE rv_batches ADD COLUMN IF NOT EXISTS prefill VARCHAR DEFAULT '';

-- rv_decisions: how long the decision took, and whether it was made on a
-- pre-filled form. lead_time is measured by the server, from serving the
-- episode page to receiving the form (seconds); client_time by the browser,
-- the seconds the page was visible; null when unknown (imported, or the
-- server restarted between the two).
ALTER TABLE rv_decisions ADD COLUMN IF NOT EXISTS lead_time DOUBLE;
ALTER TABLE rv_decisions ADD COLUMN IF NOT EXISTS client_time DOUBLE;
ALTER TABLE rv_decisions ADD COLUMN IF NOT EXISTS prefilled VARCHAR DEFAULT '';   -- the LLM reviewer shown ('' : none)

-- rv_revisions: every revision of every reviewer's decision, including the
-- current one (which rv_decisions holds, and which alone counts in every
-- statistic), skips (outcome 'skipped': the reviewer passed on the episode
-- and has no decision on it) and revisions withdrawn by an undo (undone_at
-- set). The current decision is the latest revision not undone, when that
-- is not a skip.
CREATE TABLE IF NOT EXISTS rv_revisions (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    revision      INTEGER NOT NULL,
    kind          VARCHAR NOT NULL,
    outcome       VARCHAR NOT NULL CHECK (outcome IN ('no_error', 'error', 'failed', 'skipped')),
    batch         VARCHAR,
    source        VARCHAR NOT NULL,
    decided_at    TIMESTAMP NOT NULL,
    lead_time     DOUBLE,
    client_time   DOUBLE,
    prefilled     VARCHAR NOT NULL,
    undone_at     TIMESTAMP,              -- when an undo withdrew it (null: standing)
    PRIMARY KEY (simulation_id, reviewer, revision)
);

CREATE TABLE IF NOT EXISTS rv_revision_errors (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    revision      INTEGER NOT NULL,
    idx           INTEGER NOT NULL,
    turn_idx      INTEGER,
    code          VARCHAR NOT NULL,
    severity      VARCHAR NOT NULL,
    note          VARCHAR NOT NULL,
    PRIMARY KEY (simulation_id, reviewer, revision, idx)
);

-- The decisions made before this migration are their own first revisions
-- in the history.
INSERT OR IGNORE INTO rv_revisions
SELECT simulation_id, reviewer, revision, kind, outcome, batch, source, decided_at, NULL, NULL, '', NULL
FROM rv_decisions;

INSERT OR IGNORE INTO rv_revision_errors
SELECT x.simulation_id, x.reviewer, d.revision, x.idx, x.turn_idx, x.code, x.severity, x.note
FROM rv_errors x
JOIN rv_decisions d USING (simulation_id, reviewer);
