-- A reviewer's queue in a batch in numbers: episodes, decided, skipped,
-- and the first episode neither decided nor skipped ('' : none).
WITH q AS (
    SELECT a.position, a.simulation_id, d.simulation_id IS NOT NULL AS decided,
           d.simulation_id IS NULL AND s.simulation_id IS NOT NULL AS skipped
    FROM rv_assignments a
    LEFT JOIN rv_decisions d ON d.simulation_id = a.simulation_id AND d.reviewer = a.reviewer
    LEFT JOIN (SELECT DISTINCT simulation_id, reviewer FROM rv_revisions WHERE undone_at IS NULL) s
           ON s.simulation_id = a.simulation_id AND s.reviewer = a.reviewer
    WHERE a.batch = ? AND a.reviewer = ?
)
SELECT count(*), count(*) FILTER (WHERE decided), count(*) FILTER (WHERE skipped),
       coalesce(arg_min(simulation_id, position) FILTER (WHERE NOT decided AND NOT skipped), '')
FROM q
