DELETE FROM rv_decision_context WHERE reviewer = ?
