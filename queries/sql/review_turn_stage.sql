-- The located errors of a review import, one row each (i: its position),
-- before their turns are checked against the workspace.
CREATE OR REPLACE TEMP TABLE ub_review_turns (
    i             INTEGER NOT NULL,
    simulation_id VARCHAR NOT NULL,
    turn_idx      BIGINT NOT NULL
)
