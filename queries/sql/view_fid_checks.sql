-- view_fid_checks: the reward evaluation's checks of episode $1 (the gold
-- actions against the calls made, the assertions): kind, name ('' when
-- none), requestor, met (NULL: not recorded) and the detail JSON.
SELECT kind, idx, coalesce(name, ''), coalesce(requestor, ''), met, coalesce(CAST(detail AS VARCHAR), '')
FROM ep_checks
WHERE simulation_id = $1
ORDER BY kind, idx
