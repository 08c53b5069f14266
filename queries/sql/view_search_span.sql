-- view_search_span: how many rows of the session turns ($1 = 0), episode
-- messages (1) or generations (2) lie at storage positions $2 up to $3:
-- what a window of ub view's search read.
SELECT CASE $1
    WHEN 0 THEN (SELECT count(*) FROM turns WHERE rowid >= $2 AND rowid < $3)
    WHEN 1 THEN (SELECT count(*) FROM ep_messages WHERE rowid >= $2 AND rowid < $3)
    ELSE (SELECT count(*) FROM generations WHERE rowid >= $2 AND rowid < $3)
END
