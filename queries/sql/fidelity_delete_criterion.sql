DELETE FROM ep_rubric_criteria WHERE criterion_id = ?
