DELETE FROM rv_llm_reviews WHERE simulation_id = ? AND reviewer = ?
