SELECT batch, seed, n, stratify, reviewers, coalesce(prefill, '') FROM rv_batches ORDER BY batch
