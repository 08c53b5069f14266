-- 0005: tau2-bench / tau-bench episodes and their tasks (SPEC section 6.1).
-- Episodes are not developer sessions: they never enter the split graph.
-- Tables are prefixed ep_; the documented views (episodes, episode_messages,
-- tasks, probe_findings) are what ub sql users and the analyses read.

-- ep_tasks: a task's definition, stored once per (domain, task_id, content).
-- task_key = sha256 over domain, task_id and the canonical JSON of the task.
-- tau2 tasks fill the blueprint fields from user_scenario.instructions (a
-- banking task whose instructions are one string keeps it in instruction);
-- tau-bench v1 tasks fill instruction (info.task.instruction) and user_id.
CREATE TABLE ep_tasks (
    task_key          VARCHAR PRIMARY KEY,
    domain            VARCHAR NOT NULL,
    task_id           VARCHAR NOT NULL,
    format            VARCHAR NOT NULL CHECK (format IN ('tau2', 'tau1')),
    reason_for_call   VARCHAR,
    known_info        VARCHAR,
    unknown_info      VARCHAR,
    task_instructions VARCHAR,
    persona           VARCHAR,
    instruction       VARCHAR,
    user_id           VARCHAR,
    purpose           VARCHAR,
    ticket            VARCHAR,
    reward_basis      JSON,              -- ["DB", "COMMUNICATE", ...]
    initial_state     JSON,              -- initial_state as given (user-side initialization_actions among it)
    communicate_info  JSON,
    nl_assertions     JSON,
    raw               JSON NOT NULL,     -- the task object as in the file
    source_file       VARCHAR NOT NULL,  -- first file it was read from
    UNIQUE (domain, task_id, task_key)
);

-- ep_task_actions: gold actions (evaluation_criteria.actions; v1 info.task.actions).
-- requestor is 'assistant' or 'user'; a missing requestor means the agent.
CREATE TABLE ep_task_actions (
    task_key     VARCHAR NOT NULL,
    idx          INTEGER NOT NULL,
    action_id    VARCHAR,
    requestor    VARCHAR NOT NULL CHECK (requestor IN ('assistant', 'user')),
    name         VARCHAR NOT NULL,
    arguments    JSON,
    compare_args JSON,                   -- list of argument names, or null (all)
    info         VARCHAR,
    PRIMARY KEY (task_key, idx)
);

-- ep_task_assertions: evaluation_criteria.env_assertions.
CREATE TABLE ep_task_assertions (
    task_key     VARCHAR NOT NULL,
    idx          INTEGER NOT NULL,
    env_type     VARCHAR NOT NULL,       -- 'user' | 'assistant'
    func_name    VARCHAR NOT NULL,
    arguments    JSON,
    assert_value BOOLEAN,
    message      VARCHAR,
    PRIMARY KEY (task_key, idx)
);

-- ep_runs: one per result file content (a tau2 file's info; a v1 file has
-- no info and gets one run per file). user_sim / agent are the readable
-- identities: implementation:model@params (e.g. user_simulator:gpt-4.1@t0).
CREATE TABLE ep_runs (
    run_id       VARCHAR PRIMARY KEY,    -- sha256 of the file's info (v1: of the file name's stem and domain)
    source_file  VARCHAR NOT NULL,
    format       VARCHAR NOT NULL CHECK (format IN ('tau2', 'tau1')),
    domain       VARCHAR NOT NULL,
    git_commit   VARCHAR,
    tau2_version VARCHAR,                -- '1.x' | '2.x' | null when unknown
    started      VARCHAR,                -- the file's timestamp as written
    user_impl    VARCHAR,
    user_model   VARCHAR,
    user_args    JSON,
    user_sim     VARCHAR NOT NULL,
    agent_impl   VARCHAR,
    agent_model  VARCHAR,
    agent_args   JSON,
    agent        VARCHAR NOT NULL,
    guidelines   VARCHAR,                -- info.user_info.global_simulation_guidelines
    policy_sha   VARCHAR,                -- sha256 of the agent policy text
    max_steps    INTEGER,
    seed         BIGINT
);

-- ep_episodes: one per simulation. simulation_id is the file's id (tau2) or
-- derived from the file and the episode's position and content (v1: no id).
-- content_hash decides idempotence as for sessions.
CREATE TABLE ep_episodes (
    simulation_id      VARCHAR PRIMARY KEY,
    run_id             VARCHAR NOT NULL,
    source_file        VARCHAR NOT NULL,
    source_index       INTEGER NOT NULL,  -- position in the file's simulations array
    content_hash       VARCHAR NOT NULL,
    domain             VARCHAR NOT NULL,
    task_id            VARCHAR NOT NULL,
    task_key           VARCHAR,            -- ep_tasks.task_key of the task this run embedded (null: not found)
    trial              INTEGER,
    seed               BIGINT,
    reward             DOUBLE,
    reward_basis       JSON,
    reward_breakdown   JSON,
    db_match           BOOLEAN,
    termination_reason VARCHAR,            -- v1: 'user_stop' when info.source = 'user', else the tool that ended it
    user_cost          DOUBLE,             -- as recorded (may be 0 or null)
    agent_cost         DOUBLE,
    user_tokens_in     BIGINT,             -- sum over user messages' usage.prompt_tokens (null: none recorded)
    user_tokens_out    BIGINT,
    duration           DOUBLE,             -- seconds
    started_at         VARCHAR,
    n_messages         INTEGER NOT NULL,
    extra              JSON                -- user_only_review and other optional fields kept verbatim
);

-- ep_messages: the conversation; idx is the position in the file, turn_idx as
-- recorded (v1: the position). role is user | assistant | tool | system.
-- A tool message's requestor says who made the call; tool_error is its error flag.
CREATE TABLE ep_messages (
    simulation_id     VARCHAR NOT NULL,
    idx               INTEGER NOT NULL,
    turn_idx          INTEGER NOT NULL,
    role              VARCHAR NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
    content           VARCHAR,
    tool_call_id      VARCHAR,            -- tool messages: the call they answer
    requestor         VARCHAR,            -- tool messages: 'assistant' | 'user'
    tool_error        BOOLEAN,
    n_tool_calls      INTEGER NOT NULL,
    prompt_tokens     BIGINT,
    completion_tokens BIGINT,
    cost              DOUBLE,
    ts                VARCHAR
);

-- ep_tool_calls: tool calls made in a message (user or assistant).
CREATE TABLE ep_tool_calls (
    simulation_id VARCHAR NOT NULL,
    msg_idx       INTEGER NOT NULL,       -- ep_messages.idx
    call_idx      INTEGER NOT NULL,
    call_id       VARCHAR,
    requestor     VARCHAR NOT NULL,       -- 'assistant' | 'user'
    name          VARCHAR NOT NULL,
    arguments     JSON
);

-- ep_checks: the reward evaluation's per-item checks.
-- kind: action | env_assertion | db | communicate | nl_assertion | output (v1 outputs)
CREATE TABLE ep_checks (
    simulation_id VARCHAR NOT NULL,
    kind          VARCHAR NOT NULL,
    idx           INTEGER NOT NULL,
    name          VARCHAR,                -- action name, assertion func_name, output text
    requestor     VARCHAR,                -- actions: 'assistant' | 'user'
    met           BOOLEAN,
    reward        DOUBLE,
    detail        JSON
);

-- ep_probe_findings: judge-free probes (SPEC 6.3), recomputed by ub probes
-- and at ingest. probe is P0..P6; turn_idx is the message's turn_idx (null when
-- the finding is about the episode as a whole, e.g. a missed write).
CREATE TABLE ep_probe_findings (
    simulation_id VARCHAR NOT NULL,
    probe         VARCHAR NOT NULL CHECK (probe IN ('P0', 'P1', 'P1a', 'P2', 'P3', 'P4', 'P5', 'P6')),
    turn_idx      INTEGER,
    evidence      VARCHAR NOT NULL,
    detail        JSON
);

-- ep_prices: a dated price table given with --prices ($ per million tokens).
CREATE TABLE ep_prices (
    model      VARCHAR PRIMARY KEY,
    price_in   DOUBLE NOT NULL,
    price_out  DOUBLE NOT NULL,
    read_on    VARCHAR NOT NULL,          -- the date the prices were read, as given
    source     VARCHAR                    -- the TOML file
);

CREATE VIEW episodes AS
SELECT e.simulation_id, e.source_file, e.domain, e.task_id, e.trial,
       r.user_sim, r.agent, e.reward, e.termination_reason,
       CASE WHEN e.user_cost > 0 THEN e.user_cost
            WHEN p.model IS NOT NULL AND e.user_tokens_in IS NOT NULL
                 THEN (e.user_tokens_in * p.price_in + coalesce(e.user_tokens_out, 0) * p.price_out) / 1e6
       END AS user_cost,
       CASE WHEN e.user_cost > 0 THEN false
            WHEN p.model IS NOT NULL AND e.user_tokens_in IS NOT NULL THEN true
       END AS cost_estimated,
       e.user_cost AS user_cost_recorded, e.agent_cost, e.duration,
       e.n_messages, r.git_commit, r.tau2_version, e.task_key, e.run_id
FROM ep_episodes e
JOIN ep_runs r USING (run_id)
LEFT JOIN ep_prices p ON p.model = r.user_model;

CREATE VIEW episode_messages AS
SELECT m.simulation_id, m.idx, m.turn_idx, m.role, m.content, m.tool_call_id,
       m.requestor, m.tool_error, m.n_tool_calls, m.prompt_tokens,
       m.completion_tokens, m.cost
FROM ep_messages m;

CREATE VIEW tasks AS
SELECT task_key, domain, task_id, format, reason_for_call, known_info,
       unknown_info, task_instructions, persona, instruction, user_id
FROM ep_tasks;

CREATE VIEW probe_findings AS
SELECT simulation_id, probe, turn_idx, evidence
FROM ep_probe_findings;
