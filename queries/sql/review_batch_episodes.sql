-- The distinct episodes of a batch.
SELECT DISTINCT a.simulation_id
FROM rv_assignments a
WHERE a.batch = ?
ORDER BY a.simulation_id
