-- label_fine_judges: the judges that gave any 7-way label (label7).
SELECT DISTINCT judge FROM labels WHERE label7 IS NOT NULL ORDER BY judge
