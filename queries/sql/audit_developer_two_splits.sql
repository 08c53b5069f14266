SELECT 'developer ' || developer || ' is in splits ' || string_agg(DISTINCT split, ', ' ORDER BY split)
FROM developer_splits GROUP BY developer HAVING count(DISTINCT split) > 1 ORDER BY 1
