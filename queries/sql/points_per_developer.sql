SELECT developer, split, count(*) AS points, count(*) FILTER (WHERE constant_dose) AS constant_dose
FROM points GROUP BY developer, split ORDER BY developer
