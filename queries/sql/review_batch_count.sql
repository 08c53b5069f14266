SELECT count(*) FROM rv_batches WHERE batch = ?
