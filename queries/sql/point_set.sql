SELECT seed, per_developer, source, hash FROM point_sets
