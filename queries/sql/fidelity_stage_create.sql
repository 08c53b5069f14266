-- The verdicts of one file being imported, as read (line: the file's
-- line), before they are checked against the workspace.
CREATE OR REPLACE TEMP TABLE ub_verdict_stage (
    line          INTEGER NOT NULL,
    simulation_id VARCHAR NOT NULL,
    criterion_id  VARCHAR NOT NULL,
    grader        VARCHAR NOT NULL,
    verdict       VARCHAR NOT NULL,
    turn_idx      BIGINT, -- as read: a turn past INTEGER is refused, not wrapped
    reason        VARCHAR
)
