-- 0009: which judge decided a label and how sure it was (issue 14).

-- confidence: the judge's calibrated probability that the label is right
-- (the built-in judge's Calibration), NULL when the judge gives none (model
-- judges, imports). decided_by: the judge that decided the label; equal to
-- judge except in a cascade (ub judge --cascade builtin,NAME), where the
-- labels stored under the cascade's name were decided either by 'builtin'
-- or by the model judge NAME.
ALTER TABLE labels ADD COLUMN confidence DOUBLE;
ALTER TABLE labels ADD COLUMN decided_by VARCHAR;
