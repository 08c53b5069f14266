SELECT b.batch, b.seed, b.n, b.stratify, b.reviewers, coalesce(d.oversample_probes, 0), coalesce(d.population, 0),
       coalesce(b.prefill, '')
FROM rv_batches b
LEFT JOIN rv_batch_design d USING (batch)
ORDER BY b.batch
