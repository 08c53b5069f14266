-- publish_rubric_criteria_present: whether publish_rubric_criteria has a row.
SELECT EXISTS (SELECT 1 FROM rubric_criteria)
