-- publish_verdicts_present: whether publish_verdicts has a row.
SELECT EXISTS (SELECT 1 FROM verdicts)
