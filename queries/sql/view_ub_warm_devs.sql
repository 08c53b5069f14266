-- view_ub_warm_devs: per leaderboard row (simulator, condition) and
-- developer, from ub_view_moments (view_ub_warm), in a temporary table the
-- developers page reads: the scorable moments (one per point and trial; a
-- point without a generation counts once), the generations, the hits and
-- the failed generations. Sorted by simulator, condition and developer: a
-- page is a slice of one row's.
CREATE OR REPLACE TEMP TABLE ub_view_devs AS
SELECT simulator, condition, developer,
       count(*) AS moments,
       count(*) FILTER (WHERE generated_here) AS generated,
       count(*) FILTER (WHERE hit) AS hits,
       count(*) FILTER (WHERE failed AND generated_here) AS failed
FROM ub_view_moments
GROUP BY simulator, condition, developer
ORDER BY simulator, condition, developer
