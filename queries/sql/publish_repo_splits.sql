-- publish: each repository's component and split.
SELECT repo, component, split FROM repo_splits ORDER BY repo
