-- 0013: repeated trials of a generation. generations.trial is the sample
-- index of the request that made it (runner.Request.Sample): 0 for the
-- first (and, by default, only) trial of a (simulator, point, condition,
-- N, K), 1 .. k-1 for the further trials of an experiment with trials = k.
-- Every generation stored before is trial 0, which keeps its id.
ALTER TABLE generations ADD COLUMN IF NOT EXISTS trial INTEGER DEFAULT 0;
UPDATE generations SET trial = 0 WHERE trial IS NULL;
