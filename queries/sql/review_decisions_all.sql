-- Every decision with its episode's domain, task and reward: the
-- workspace's episode, else what the imported file said (null when
-- neither knows), and, for a decision made in a probe-guided batch, the
-- episode's stratum and inclusion probability (null otherwise); for an
-- LLM decision, the model it was made with ('' unknown) and whether it
-- was salvaged (rv_llm_reviews).
SELECT d.simulation_id, d.reviewer, d.kind, d.outcome, coalesce(d.batch, ''), d.source,
       d.decided_at, d.revision,
       CASE WHEN e.simulation_id IS NULL THEN c.domain ELSE e.domain END,
       CASE WHEN e.simulation_id IS NULL THEN c.task_id ELSE e.task_id END,
       CASE WHEN e.simulation_id IS NULL THEN c.reward ELSE e.reward END,
       e.simulation_id IS NOT NULL,
       CASE WHEN g.oversample_probes > 0 THEN i.inclusion_prob END,
       coalesce(i.stratum, ''),
       d.lead_time, d.client_time, coalesce(d.prefilled, ''),
       coalesce(l.model, ''), coalesce(l.salvaged, false)
FROM rv_decisions d
LEFT JOIN ep_episodes e USING (simulation_id)
LEFT JOIN rv_decision_context c ON c.simulation_id = d.simulation_id AND c.reviewer = d.reviewer
LEFT JOIN rv_inclusion i ON i.batch = d.batch AND i.simulation_id = d.simulation_id
LEFT JOIN rv_batch_design g ON g.batch = d.batch
LEFT JOIN rv_llm_reviews l ON l.simulation_id = d.simulation_id AND l.reviewer = d.reviewer
ORDER BY d.simulation_id, d.reviewer
