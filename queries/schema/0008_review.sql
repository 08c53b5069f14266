-- 0008: the review workbench (SPEC section 7): batches of sampled episodes,
-- their assignment to reviewers, and each reviewer's decision on an episode
-- with the simulator errors it records. LLM reviews (tau2 user_only_review)
-- are stored as decisions of kind 'llm', never mixed with human ones.

-- rv_batches: a named sample, reproducible from its seed.
CREATE TABLE rv_batches (
    batch     VARCHAR PRIMARY KEY,
    seed      BIGINT NOT NULL,
    n         INTEGER NOT NULL,           -- episodes in the batch
    stratify  VARCHAR NOT NULL,           -- 'domain,success', 'domain', ... or ''
    reviewers VARCHAR NOT NULL            -- comma-separated, in the order given
);

-- rv_assignments: which reviewer reviews which episode, in queue order.
CREATE TABLE rv_assignments (
    batch         VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    position      INTEGER NOT NULL,       -- 1-based place in the reviewer's queue
    simulation_id VARCHAR NOT NULL,
    PRIMARY KEY (batch, reviewer, position),
    UNIQUE (batch, reviewer, simulation_id)
);

-- rv_decisions: one reviewer's current decision on one episode. outcome
-- 'no_error' is the explicit "no simulator error"; 'error' has rows in
-- rv_errors; 'failed' is an LLM review that failed to parse (never a pass).
-- kind 'adjudicator' is the final word where two humans disagree.
CREATE TABLE rv_decisions (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL CHECK (kind IN ('human', 'llm', 'adjudicator')),
    outcome       VARCHAR NOT NULL CHECK (outcome IN ('no_error', 'error', 'failed')),
    batch         VARCHAR,                -- the batch it was made in (null: imported)
    source        VARCHAR NOT NULL,       -- 'web', or the imported file and line
    decided_at    TIMESTAMP NOT NULL,     -- UTC, when it was (last) saved
    revision      INTEGER NOT NULL,       -- 1 at the first save, +1 at each change
    PRIMARY KEY (simulation_id, reviewer)
);

-- rv_errors: the simulator errors of a decision with outcome 'error'.
-- turn_idx is the episode message's turn_idx (null: the episode as a whole).
CREATE TABLE rv_errors (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    idx           INTEGER NOT NULL,
    turn_idx      INTEGER,
    code          VARCHAR NOT NULL,
    severity      VARCHAR NOT NULL CHECK (severity IN ('minor', 'critical_helped', 'critical_hindered')),
    note          VARCHAR NOT NULL,
    PRIMARY KEY (simulation_id, reviewer, idx)
);

-- review_decisions: every decision with its episode's domain and reward
-- (null when the episode is not in the workspace, e.g. imported labels).
CREATE VIEW review_decisions AS
SELECT d.simulation_id, d.reviewer, d.kind, d.outcome, d.batch, d.source,
       d.decided_at, d.revision, e.domain, e.task_id, e.reward,
       (SELECT count(*) FROM rv_errors x WHERE x.simulation_id = d.simulation_id AND x.reviewer = d.reviewer) AS n_errors,
       (SELECT count(*) FROM rv_errors x WHERE x.simulation_id = d.simulation_id AND x.reviewer = d.reviewer
                                          AND x.severity <> 'minor') AS n_critical
FROM rv_decisions d
LEFT JOIN ep_episodes e USING (simulation_id);

CREATE VIEW review_errors AS
SELECT simulation_id, reviewer, idx, turn_idx, code, severity, note
FROM rv_errors;
