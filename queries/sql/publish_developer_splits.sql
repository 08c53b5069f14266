-- publish: each developer's component and split.
SELECT developer, component, split FROM developer_splits ORDER BY developer
