-- study_empty: whether the workspace holds no sessions, generations, labels or simulators (ub synth writes only a fresh one).
SELECT (SELECT count(*) FROM sessions) + (SELECT count(*) FROM generations)
     + (SELECT count(*) FROM labels) + (SELECT count(*) FROM simulators) = 0
