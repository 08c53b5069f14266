INSERT INTO rv_llm_reviews (simulation_id, reviewer, model, salvaged) VALUES (?, ?, ?, ?)
