-- Store the accepted staged verdicts of file ?.
INSERT INTO ep_verdicts (simulation_id, criterion_id, grader, verdict, turn_idx, reason, prompt_version, request_key, source_file, source_line)
SELECT simulation_id, criterion_id, grader, verdict, turn_idx, reason, NULL, NULL, ?, line
FROM ub_verdict_stage ANTI JOIN ub_verdict_refused USING (line)
