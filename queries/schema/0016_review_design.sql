-- 0016: the review sample's design and what imported labels say of their
-- episodes. A probe-guided batch (ub review sample --oversample-probes W)
-- draws episodes where judge-free probes fired with weight W, so each
-- sampled episode keeps its stratum and inclusion probability: every
-- estimate from the batch is weighted back by 1 / inclusion_prob.

-- rv_batch_design: how a batch was drawn (batches made before 0016 have none).
CREATE TABLE rv_batch_design (
    batch             VARCHAR PRIMARY KEY,
    oversample_probes DOUBLE NOT NULL,    -- W; 0 when probes did not weight the draw
    population        INTEGER NOT NULL    -- episodes the batch was drawn from
);

-- rv_inclusion: each episode of a batch, its stratum (the stratify fields,
-- then "probes" or "quiet" in a probe-guided batch) and the probability
-- that the draw included it (stratum_n / stratum_size).
CREATE TABLE rv_inclusion (
    batch          VARCHAR NOT NULL,
    simulation_id  VARCHAR NOT NULL,
    stratum        VARCHAR NOT NULL,
    probes_fired   BOOLEAN NOT NULL,
    stratum_size   INTEGER NOT NULL,
    stratum_n      INTEGER NOT NULL,
    inclusion_prob DOUBLE NOT NULL CHECK (inclusion_prob > 0 AND inclusion_prob <= 1),
    PRIMARY KEY (batch, simulation_id)
);

-- rv_decision_context: what an imported file says of the episode a
-- decision is about (a CSV's domain, task_id and reward columns). Used only
-- when the episode is not in the workspace; the workspace's episode wins.
CREATE TABLE rv_decision_context (
    simulation_id VARCHAR NOT NULL,
    reviewer      VARCHAR NOT NULL,
    domain        VARCHAR,
    task_id       VARCHAR,
    reward        DOUBLE,
    PRIMARY KEY (simulation_id, reviewer)
);
