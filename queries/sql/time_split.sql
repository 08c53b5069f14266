-- time_split: per developer, sessions in start-time order (ties by id); the
-- last h are held out, h = least(n - 1, greatest(min_heldout, ceil(fraction * n))),
-- so every developer keeps at least one profile session. Parameters: fraction, min_heldout.
INSERT INTO session_roles
SELECT id, developer, rn,
       CASE WHEN rn > n - least(n - 1, greatest(CAST(? AS INTEGER), CAST(ceil(CAST(? AS DOUBLE) * n) AS INTEGER)))
            THEN 'heldout' ELSE 'profile' END
FROM (SELECT id, developer,
             row_number() OVER (PARTITION BY developer ORDER BY started_at NULLS LAST, id) AS rn,
             count(*) OVER (PARTITION BY developer) AS n
      FROM sessions)
