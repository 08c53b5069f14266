-- The attempts discarded before each kept episode (the attempt ledger).
SELECT kept_id, count(*) FROM ep_attempts WHERE NOT kept GROUP BY kept_id ORDER BY kept_id
