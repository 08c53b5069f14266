-- publish: the trial (from 0) of every generation after the first trial
-- of its (simulator, point, condition, N, K), for experiments with
-- trials > 1; a generation not listed is its setting's first trial (0).
-- Empty, and so not published, for a single-trial study.
SELECT id, point_id, simulator, condition, window_n, history_k, trial
FROM generations
WHERE trial > 0
ORDER BY id
