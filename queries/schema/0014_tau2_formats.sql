-- 0014: what tau2-bench writes beyond the monolithic result file: the
-- ticks of full-duplex episodes, every attempt of a simulation (also the
-- discarded ones), tau2's own task splits and agent policy, and what an
-- imported LLM review was made with.

-- tick_id: the tick a message of a full-duplex episode was built from
-- (null: a turn-based episode, whose messages are stored as written).
ALTER TABLE ep_messages ADD COLUMN tick_id INTEGER;

-- ep_attempts: the attempt ledger. One row per attempt at a (run, task,
-- trial): the kept simulation is the last attempt; earlier ones were
-- discarded when tau2's hallucination checker fired (reason
-- 'user_hallucination'; simulation_id known only when the discarded
-- run's file was read). A kept attempt that ended on an infrastructure
-- error has reason 'infrastructure_error' (tau2 keeps it out of pass^k).
CREATE TABLE ep_attempts (
    run_id        VARCHAR NOT NULL,
    task_id       VARCHAR NOT NULL,
    trial         INTEGER NOT NULL,        -- -1 when the simulation records none
    attempt       INTEGER NOT NULL,        -- 1-based
    kept          BOOLEAN NOT NULL,
    reason        VARCHAR CHECK (reason IN ('user_hallucination', 'infrastructure_error')),
    simulation_id VARCHAR,                 -- the attempt's simulation (null: a discarded one not read)
    kept_id       VARCHAR NOT NULL,        -- the kept simulation of the task and trial
    source_file   VARCHAR NOT NULL,
    PRIMARY KEY (run_id, task_id, trial, attempt)
);

-- ep_task_splits: tau2's split_tasks.json (split name -> task ids) of a
-- domain, as read from the task folder.
CREATE TABLE ep_task_splits (
    domain      VARCHAR NOT NULL,
    split       VARCHAR NOT NULL,
    task_id     VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL,
    PRIMARY KEY (domain, split, task_id)
);

-- ep_domains: a domain's agent policy (policy.md of the task folder);
-- policy_sha is what ep_runs.policy_sha holds for runs under it.
CREATE TABLE ep_domains (
    domain      VARCHAR PRIMARY KEY,
    policy      VARCHAR NOT NULL,
    policy_sha  VARCHAR NOT NULL,
    source_file VARCHAR NOT NULL
);

-- rv_llm_reviews: what an imported LLM decision was made with: the
-- reviewing model (null: not said) and whether it was salvaged from the
-- raw response tau2 kept when its own parser refused the review.
CREATE TABLE rv_llm_reviews (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    model         VARCHAR,
    salvaged      BOOLEAN NOT NULL,
    PRIMARY KEY (simulation_id, reviewer)
);

-- rv_error_ticks: the tick span a full-duplex review gave an error
-- (rv_errors.turn_idx is the first user message built from those ticks).
CREATE TABLE rv_error_ticks (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    idx           INTEGER NOT NULL,
    tick_start    INTEGER,
    tick_end      INTEGER,
    PRIMARY KEY (simulation_id, reviewer, idx)
);
