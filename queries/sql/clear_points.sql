DELETE FROM point_sets;
DELETE FROM points;
