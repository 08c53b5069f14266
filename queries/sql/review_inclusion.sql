-- A batch's episodes with their stratum and inclusion probability.
SELECT simulation_id, stratum, probes_fired, stratum_size, stratum_n, inclusion_prob
FROM rv_inclusion
WHERE batch = ?
ORDER BY simulation_id
