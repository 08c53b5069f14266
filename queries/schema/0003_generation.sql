-- 0003: simulators, profiles, prompts and generations (SPEC section 3), and the
-- durable response cache of the batch runner.

-- responses: the content-addressed cache. One row per request key that got a
-- final answer (a response, or a permanent error). A row is written the moment
-- its response arrives, so a killed run loses nothing and a re-run sends
-- nothing twice. No API key is ever part of a request or a row.
CREATE TABLE responses (
    key           VARCHAR PRIMARY KEY, -- sha256 of the canonical request (see sim.Request.Key)
    backend       VARCHAR NOT NULL,    -- openai | openai-batch | anthropic-batch | mix | retrieve | ...
    model         VARCHAR NOT NULL,
    request       JSON NOT NULL,       -- the canonical request: messages, parameters, sample index
    text          VARCHAR,             -- the answer; NULL on error
    tokens_in     INTEGER,
    tokens_out    INTEGER,
    latency_ms    INTEGER,
    finish_reason VARCHAR,
    error         VARCHAR,             -- NULL when answered
    permanent     BOOLEAN NOT NULL DEFAULT false, -- an error that retrying cannot fix (400, context too long)
    attempts      INTEGER NOT NULL DEFAULT 1,
    via_batch     BOOLEAN NOT NULL DEFAULT false, -- answered through a provider batch file (batch price)
    raw           JSON                 -- the provider's response body, as received
);

-- simulators: every simulator an experiment named, with its price table.
CREATE TABLE simulators (
    name           VARCHAR PRIMARY KEY,
    backend        VARCHAR NOT NULL,
    model          VARCHAR NOT NULL,
    params         JSON,               -- temperature, max_tokens, reasoning_effort, extra body fields
    price_in       DOUBLE,             -- per million input tokens
    price_out      DOUBLE,             -- per million output tokens
    batch_discount DOUBLE              -- price factor for batch answers, e.g. 0.5
);

-- prompt_templates: every template version ever used, so the exact prompt of
-- any generation can be shown again.
CREATE TABLE prompt_templates (
    version VARCHAR PRIMARY KEY,       -- short sha256 of the text
    name    VARCHAR NOT NULL,
    text    VARCHAR NOT NULL
);

-- profiles: built only from a developer's profile sessions.
CREATE TABLE profiles (
    developer      VARCHAR NOT NULL,
    kind           VARCHAR NOT NULL,   -- stats | model
    model          VARCHAR,            -- the distilling model (kind = model)
    prompt_version VARCHAR,            -- distillation prompt version (kind = model)
    request_key    VARCHAR,            -- responses.key (kind = model)
    text           VARCHAR NOT NULL,   -- the persona text a prompt uses
    stats          JSON,               -- the statistical profile (kind = stats)
    PRIMARY KEY (developer, kind)
);

-- generations: one per (simulator, point, condition, window N, history K).
CREATE TABLE generations (
    id             VARCHAR PRIMARY KEY, -- short sha256 of (simulator, point, condition, N, K)
    point_id       VARCHAR NOT NULL,
    simulator      VARCHAR NOT NULL,
    condition      VARCHAR NOT NULL,   -- profile | noprofile | terse
    window_n       INTEGER NOT NULL,
    history_k      INTEGER NOT NULL,
    request_key    VARCHAR NOT NULL,   -- responses.key of the request that made it
    key_parts      JSON NOT NULL,      -- what went into the key, for ub cache explain
    text           VARCHAR,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    cost           DOUBLE,             -- USD, from the simulator's prices (batch discount applied)
    latency_ms     INTEGER,
    error          VARCHAR,            -- NULL when the generation has text
    prompt_version VARCHAR NOT NULL,
    experiment     VARCHAR             -- the experiment file's name, or 'flags'
);
