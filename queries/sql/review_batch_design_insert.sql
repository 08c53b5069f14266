INSERT INTO rv_batch_design (batch, oversample_probes, population) VALUES (?, ?, ?)
