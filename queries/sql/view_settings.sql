-- view_settings: the generations per simulator, condition, live window and
-- history, for the anchor setting (queries.Anchor) and the simulators a
-- page may name.
SELECT simulator, condition, window_n, history_k, count(*) AS generations
FROM generations
GROUP BY ALL
ORDER BY simulator, condition, window_n, history_k
