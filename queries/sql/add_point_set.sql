INSERT INTO point_sets VALUES (?, ?, ?, ?)
