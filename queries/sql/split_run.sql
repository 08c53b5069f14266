SELECT seed, ratios, measure, hash, heldout_fraction, min_heldout_sessions, min_sessions, min_heldout_moments, warnings FROM split_runs
