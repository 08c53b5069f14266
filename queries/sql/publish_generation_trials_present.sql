-- publish_generation_trials_present: whether publish_generation_trials has a row (an experiment ran more than one trial).
SELECT EXISTS (SELECT 1 FROM generations WHERE trial > 0)
