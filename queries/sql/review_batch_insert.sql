INSERT INTO rv_batches (batch, seed, n, stratify, reviewers, prefill) VALUES (?, ?, ?, ?, ?, ?)
