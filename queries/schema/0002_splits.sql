-- 0002: leak-free splits, the time split, eligibility and frozen points (SPEC section 2).
-- Each table holds the latest `ub split` / `ub points`; a new run replaces it.

-- split_runs: the parameters and result hash of the split in force (one row).
CREATE TABLE split_runs (
    seed                 BIGINT NOT NULL,
    ratios               VARCHAR NOT NULL,   -- "train=0.7,val=0.1,test=0.2"
    measure              VARCHAR NOT NULL,   -- developers | sessions
    hash                 VARCHAR NOT NULL,   -- sha256 of the node -> split assignment
    heldout_fraction     DOUBLE NOT NULL,
    min_heldout_sessions INTEGER NOT NULL,
    min_sessions         INTEGER NOT NULL,
    min_heldout_moments  INTEGER NOT NULL,
    warnings             VARCHAR NOT NULL    -- newline-separated; '' when none
);

CREATE TABLE components (
    id         INTEGER NOT NULL,
    developers INTEGER NOT NULL,
    repos      INTEGER NOT NULL,
    sessions   INTEGER NOT NULL,
    split      VARCHAR NOT NULL
);

-- No keys on these two: ub audit checks that nothing is in two splits, also
-- after hand edits with ub sql --write.
CREATE TABLE developer_splits (
    developer VARCHAR NOT NULL,
    component INTEGER NOT NULL,
    split     VARCHAR NOT NULL
);

CREATE TABLE repo_splits (
    repo      VARCHAR NOT NULL,
    component INTEGER NOT NULL,
    split     VARCHAR NOT NULL
);

-- session_roles: the time split inside each developer.
CREATE TABLE session_roles (
    session_id VARCHAR NOT NULL,
    developer  VARCHAR NOT NULL,
    ordinal    INTEGER NOT NULL,  -- 1-based position in the developer's start-time order
    role       VARCHAR NOT NULL CHECK (role IN ('profile', 'heldout'))
);

-- eligibility: every val and test developer, how far they got down the funnel.
CREATE TABLE eligibility (
    developer        VARCHAR NOT NULL,
    split            VARCHAR NOT NULL,
    sessions         INTEGER NOT NULL,
    heldout_sessions INTEGER NOT NULL,
    heldout_moments  INTEGER NOT NULL,
    eligible         BOOLEAN NOT NULL,
    dropped_at       VARCHAR            -- the first rule failed; NULL when eligible
);

-- point_sets: how the frozen points were made (one row).
CREATE TABLE point_sets (
    seed          BIGINT,             -- NULL when imported
    per_developer INTEGER,
    source        VARCHAR NOT NULL,   -- sampled | imported:<file name>
    hash          VARCHAR NOT NULL    -- sha256 of the exported points file
);

CREATE TABLE points (
    id            VARCHAR NOT NULL,
    developer     VARCHAR NOT NULL,
    split         VARCHAR NOT NULL,
    session_id    VARCHAR NOT NULL,
    turn_idx      INTEGER NOT NULL,
    prior_turns   INTEGER NOT NULL,   -- turns of the session before the moment
    constant_dose BOOLEAN NOT NULL    -- prior_turns >= 10
);
