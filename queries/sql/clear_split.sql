DELETE FROM split_runs;
DELETE FROM components;
DELETE FROM developer_splits;
DELETE FROM repo_splits;
DELETE FROM session_roles;
DELETE FROM eligibility;
DELETE FROM point_sets;
DELETE FROM points;
