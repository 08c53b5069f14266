-- responses_put: insert or replace one response row (the key is the primary key).
INSERT OR REPLACE INTO responses
    (key, backend, model, request, text, tokens_in, tokens_out, latency_ms,
     finish_reason, error, permanent, attempts, via_batch, raw)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
