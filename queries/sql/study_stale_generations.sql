-- study_stale_generations: generations whose point is not among the frozen points (made before a re-freeze).
SELECT count(*) FROM generations g WHERE NOT EXISTS (SELECT 1 FROM points p WHERE p.id = g.point_id)
