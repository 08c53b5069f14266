-- publish: every judge's label of each frozen point's real message.
SELECT target_id AS point_id, judge, move, label7, prompt_version
FROM labels WHERE target = 'point'
ORDER BY target_id, judge
