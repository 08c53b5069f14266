-- Say which LLM reviewer's decisions pre-fill a batch's forms ('' : none).
UPDATE rv_batches SET prefill = ? WHERE batch = ?
