-- 0004: move labels from judges (SPEC section 4).

-- labels: one per (target, judge). target is 'point' (the real developer
-- message at a frozen point), 'generation', or 'message' (an imported message
-- id). move is approve | critical | directive | inquiry | other, or
-- 'unparseable' when a model judge's answer could not be read (never guessed).
CREATE TABLE labels (
    target         VARCHAR NOT NULL CHECK (target IN ('point', 'generation', 'message')),
    target_id      VARCHAR NOT NULL,
    judge          VARCHAR NOT NULL,   -- builtin | a model judge's name | imported:<source>
    move           VARCHAR NOT NULL CHECK (move IN ('approve', 'critical', 'directive', 'inquiry', 'other', 'unparseable')),
    label7         VARCHAR,            -- the 7-way label, when the judge gives one
    prompt_version VARCHAR,            -- judge prompt or weights version
    request_key    VARCHAR,            -- responses.key (model judges)
    raw            VARCHAR,            -- the judge's answer as given
    PRIMARY KEY (target, target_id, judge)
);
