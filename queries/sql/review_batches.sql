SELECT batch, seed, n, stratify, reviewers FROM rv_batches ORDER BY batch
