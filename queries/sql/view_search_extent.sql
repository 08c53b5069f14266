-- view_search_extent: where the storage positions (rowid) of the session
-- turns, the episode messages and the generations end (one past the
-- last; 0 for an empty table) and how many rows each holds: the bounds of
-- ub view's search.
SELECT (SELECT coalesce(max(rowid) + 1, 0) FROM turns), (SELECT count(*) FROM turns),
       (SELECT coalesce(max(rowid) + 1, 0) FROM ep_messages), (SELECT count(*) FROM ep_messages),
       (SELECT coalesce(max(rowid) + 1, 0) FROM generations), (SELECT count(*) FROM generations)
