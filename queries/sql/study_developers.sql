-- study_developers: the developers with frozen points by their number in
-- study_cells (dev), which the aggregate queries give instead of the name.
SELECT DISTINCT dev, developer
FROM ub_study_points
ORDER BY dev
