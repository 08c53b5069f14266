-- view_fid_warm: every episode with f as grader $1 graded it, in a
-- temporary table the episode lists of ub view read (view_fid_domains,
-- view_fid_episodes, view_fid_same_task), so that a page reads the rows of
-- one user simulator, not every verdict: the user simulator, domain, task,
-- trial and reward; the criteria applicable (pass or fail) and failed, of
-- the accepted rubric; P0; f as episode_fidelity defines it (NULL when no
-- criterion applied or P0 fired, else 1 when none failed, else 0); the
-- failing families and the probes that fired, each comma-separated and
-- sorted. Sorted by user simulator,
-- domain and task (numeric ids in number order), trial and id: a list's
-- rows lie together, and a page is a slice of them.
CREATE OR REPLACE TEMP TABLE ub_view_episodes AS
WITH agg AS (
    SELECT v.simulation_id,
           count(*) FILTER (WHERE v.verdict IN ('pass', 'fail')) AS applicable,
           count(*) FILTER (WHERE v.verdict = 'fail') AS failed,
           string_agg(DISTINCT c.family, ', ' ORDER BY c.family) FILTER (WHERE v.verdict = 'fail') AS families
    FROM ep_verdicts v
    JOIN ep_rubric_criteria c ON c.criterion_id = v.criterion_id AND c.status = 'accepted'
    WHERE v.grader = $1
    GROUP BY v.simulation_id
),
p0 AS (
    SELECT DISTINCT simulation_id FROM ep_probe_findings WHERE probe = 'P0'
),
fired AS (
    SELECT simulation_id, string_agg(DISTINCT probe, ', ' ORDER BY probe) AS probes
    FROM ep_probe_findings
    GROUP BY simulation_id
)
SELECT r.user_sim, e.domain, e.task_id, e.trial, e.reward, e.simulation_id,
       coalesce(a.applicable, 0) AS applicable, coalesce(a.failed, 0) AS failed,
       p.simulation_id IS NOT NULL AS p0,
       CASE WHEN coalesce(a.applicable, 0) = 0 OR p.simulation_id IS NOT NULL THEN NULL
            WHEN a.failed = 0 THEN 1 ELSE 0 END AS f,
       coalesce(a.families, '') AS families,
       coalesce(fi.probes, '') AS probes
FROM ep_episodes e
JOIN ep_runs r ON r.run_id = e.run_id
LEFT JOIN agg a ON a.simulation_id = e.simulation_id
LEFT JOIN p0 p ON p.simulation_id = e.simulation_id
LEFT JOIN fired fi ON fi.simulation_id = e.simulation_id
ORDER BY r.user_sim, e.domain, try_cast(e.task_id AS BIGINT) NULLS LAST, e.task_id, e.trial NULLS FIRST, e.simulation_id
