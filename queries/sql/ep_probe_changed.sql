-- The episodes whose staged findings (temp.ub_probe_findings) differ from
-- the stored ones: compared as each episode's findings, sorted, so that an
-- episode whose findings did not change is neither deleted nor written.
CREATE OR REPLACE TEMP TABLE ub_probe_changed AS
WITH s AS (
    SELECT simulation_id,
           list((probe, turn_idx, evidence, detail::VARCHAR) ORDER BY probe, turn_idx, evidence, detail::VARCHAR) AS l
    FROM ep_probe_findings
    GROUP BY simulation_id
), n AS (
    SELECT simulation_id,
           list((probe, turn_idx, evidence, detail::VARCHAR) ORDER BY probe, turn_idx, evidence, detail::VARCHAR) AS l
    FROM temp.ub_probe_findings
    GROUP BY simulation_id
)
SELECT coalesce(s.simulation_id, n.simulation_id) AS simulation_id
FROM s FULL OUTER JOIN n ON n.simulation_id = s.simulation_id
WHERE s.l IS DISTINCT FROM n.l
