-- 0007: user-fidelity rubrics and verdicts (SPEC 6.2), and the per-episode
-- fidelity every UFS analysis reads (SPEC 6.4).

-- ep_rubric_criteria: one criterion of a task's rubric. criterion_id is
-- unique across the workspace (the corpus writes "airline-0-c1").
-- status: 'accepted' criteria are graded; 'rejected' ones (by the verifier
-- of ub rubrics write) are kept with their reason and never graded.
CREATE TABLE ep_rubric_criteria (
    criterion_id  VARCHAR PRIMARY KEY,
    domain        VARCHAR NOT NULL,
    task_id       VARCHAR NOT NULL,
    family        VARCHAR NOT NULL,
    mode          VARCHAR NOT NULL,
    quote         VARCHAR NOT NULL,
    quote_source  VARCHAR NOT NULL,
    text          VARCHAR NOT NULL,
    applies_when  VARCHAR,
    written_by    VARCHAR NOT NULL,         -- 'imported:<file>' or the writer model
    verified_by   VARCHAR,                  -- the verifier model; null for imports
    status        VARCHAR NOT NULL CHECK (status IN ('accepted', 'rejected')),
    reject_reason VARCHAR,
    prompt_version VARCHAR,                 -- writer/verifier prompt versions; null for imports
    source_file   VARCHAR NOT NULL,
    source_line   INTEGER NOT NULL,
    -- A rejected criterion is kept as the writer gave it (even with an
    -- unknown family or source); an accepted one is well-formed.
    CHECK (status = 'rejected' OR (family IN ('disclosure', 'groundedness', 'goal_deviation', 'omitted_info')
           AND quote_source IN ('reason_for_call', 'known_info', 'unknown_info', 'task_instructions', 'persona', 'guidelines')))
);

-- ep_verdicts: one grader's verdict on one criterion in one episode.
-- turn_idx is the first failing user message's turn_idx (fail only).
CREATE TABLE ep_verdicts (
    simulation_id VARCHAR NOT NULL,
    criterion_id  VARCHAR NOT NULL,
    grader        VARCHAR NOT NULL,
    verdict       VARCHAR NOT NULL CHECK (verdict IN ('pass', 'fail', 'na')),
    turn_idx      INTEGER,
    reason        VARCHAR,
    prompt_version VARCHAR,                 -- ub grade's prompt version; null for imports
    request_key   VARCHAR,                  -- ub grade's response-cache key; null for imports
    source_file   VARCHAR NOT NULL,
    source_line   INTEGER NOT NULL,
    PRIMARY KEY (simulation_id, criterion_id, grader)
);

CREATE VIEW rubric_criteria AS
SELECT criterion_id, domain, task_id, family, mode, quote, quote_source, text,
       applies_when, written_by, verified_by, status, reject_reason
FROM ep_rubric_criteria;

CREATE VIEW verdicts AS
SELECT v.simulation_id, v.criterion_id, c.family, c.mode, v.grader, v.verdict,
       v.turn_idx, v.reason
FROM ep_verdicts v
LEFT JOIN ep_rubric_criteria c USING (criterion_id);

-- episode_fidelity: per (episode, grader) with at least one verdict.
-- applicable = pass + fail verdicts of accepted criteria; failed = fail
-- verdicts; p0 = the episode is flagged P0 (task mismatch, SPEC 6.3);
-- f = 1 when every applicable criterion passed, 0 when one failed, null
-- when nothing applies or the episode is P0 (both excluded and counted).
CREATE VIEW episode_fidelity AS
WITH agg AS (
    SELECT v.simulation_id, v.grader,
           count(*) FILTER (WHERE v.verdict IN ('pass', 'fail')) AS applicable,
           count(*) FILTER (WHERE v.verdict = 'fail') AS failed
    FROM ep_verdicts v
    JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id AND c.status = 'accepted'
    GROUP BY v.simulation_id, v.grader
)
SELECT a.simulation_id, a.grader, r.user_sim, e.domain, e.task_id, e.reward,
       a.applicable, a.failed,
       EXISTS (SELECT 1 FROM ep_probe_findings p WHERE p.simulation_id = a.simulation_id AND p.probe = 'P0') AS p0,
       CASE WHEN a.applicable = 0 THEN NULL
            WHEN EXISTS (SELECT 1 FROM ep_probe_findings p WHERE p.simulation_id = a.simulation_id AND p.probe = 'P0') THEN NULL
            WHEN a.failed = 0 THEN 1 ELSE 0 END AS f
FROM agg a
JOIN ep_episodes e ON e.simulation_id = a.simulation_id
JOIN ep_runs r ON r.run_id = e.run_id;
