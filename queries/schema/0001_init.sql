-- 0001: the data model of ingest (SPEC section 1).
-- Identity: a developer and a repository are plain names; sessions point at them.

CREATE TABLE developers (
    name VARCHAR PRIMARY KEY
);

CREATE TABLE repos (
    name VARCHAR PRIMARY KEY
);

-- developer_repos: every developer <-> repository edge, with where it came
-- from: 'session' (the developer has a session there) or 'manifest' (an
-- author listed for the repository by ingest --manifest).
CREATE TABLE developer_repos (
    developer VARCHAR NOT NULL,
    repo      VARCHAR NOT NULL,
    source    VARCHAR NOT NULL CHECK (source IN ('session', 'manifest')),
    PRIMARY KEY (developer, repo, source)
);

CREATE TABLE sessions (
    id            VARCHAR PRIMARY KEY,
    developer     VARCHAR NOT NULL,
    repo          VARCHAR NOT NULL,
    started_at    TIMESTAMP,
    source_format VARCHAR NOT NULL,
    source_file   VARCHAR NOT NULL,
    source_line   INTEGER NOT NULL,
    content_hash  VARCHAR NOT NULL,
    n_turns       INTEGER NOT NULL,
    meta          JSON
);

-- turns has no index on purpose: the appender loads it in bulk, and (session_id, idx)
-- is unique by construction (a session is written whole, in one transaction).
CREATE TABLE turns (
    session_id VARCHAR NOT NULL,
    idx        INTEGER NOT NULL,
    role       VARCHAR NOT NULL CHECK (role IN ('developer', 'agent', 'tool', 'system')),
    text       VARCHAR NOT NULL,
    ts         TIMESTAMP,
    is_command BOOLEAN NOT NULL,
    meta       JSON
);

-- ingest_errors holds the errors of the latest ingest of each file: a re-ingest
-- of a file replaces its rows.
CREATE TABLE ingest_errors (
    path   VARCHAR NOT NULL,
    line   INTEGER NOT NULL,
    reason VARCHAR NOT NULL,
    format VARCHAR
);

-- moments: developer turns that follow at least one agent turn (SPEC section 1);
-- slash commands and shell escapes are not moments.
CREATE VIEW moments AS
SELECT t.session_id, t.idx AS turn_idx, s.developer, s.repo, t.text,
       t.idx AS prior_turns
FROM turns t
JOIN sessions s ON s.id = t.session_id
WHERE t.role = 'developer'
  AND NOT t.is_command
  AND EXISTS (SELECT 1 FROM turns a
              WHERE a.session_id = t.session_id AND a.role = 'agent' AND a.idx < t.idx);
