DELETE FROM rv_llm_reviews WHERE reviewer = ?
