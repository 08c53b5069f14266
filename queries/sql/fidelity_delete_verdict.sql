DELETE FROM ep_verdicts WHERE simulation_id = ? AND criterion_id = ? AND grader = ?
