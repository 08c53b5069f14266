-- The errors of every file under a folder (the argument ends with the
-- path separator): a dir-format tau2 run's simulation files.
DELETE FROM ingest_errors WHERE starts_with(path, ?)
