package queries

import "context"

// PublishTable is one table of a published bundle: the file it goes to
// (relative to the bundle), the query that makes it and what it holds.
type PublishTable struct {
	File, Query, About string
	// Optional tables are left out of a bundle when they have no row (the
	// user-fidelity tables of a workspace without rubrics).
	Optional bool
	// present names the query that says whether an optional table has a
	// row.
	present string
}

// Skip reports whether t is an optional table with no row, left out of
// the bundle.
func (t PublishTable) Skip(ctx context.Context, db Querier) (bool, error) {
	if !t.Optional {
		return false, nil
	}
	var has bool
	err := db.QueryRowContext(ctx, q(t.present)).Scan(&has)
	return !has, err
}

// PublishTables are the tables ub publish writes, each as JSONL in a
// stable row order.
func PublishTables() []PublishTable {
	return []PublishTable{
		{File: "split/split_runs.jsonl", Query: q("publish_split_runs"), About: "the split in force: seed, ratios, time-split and eligibility rules, hash"},
		{File: "split/components.jsonl", Query: q("publish_components"), About: "every developer <-> repository component: its developers, repositories, sessions and split"},
		{File: "split/developer_splits.jsonl", Query: q("publish_developer_splits"), About: "each developer's component and split"},
		{File: "split/repo_splits.jsonl", Query: q("publish_repo_splits"), About: "each repository's component and split"},
		{File: "generations.jsonl", Query: q("publish_generations"), About: "every generation (simulator, condition, window N, history K, text or error, tokens, cost) with every judge's label of it"},
		{File: "generation_trials.jsonl", Query: q("publish_generation_trials"), present: "publish_generation_trials_present", About: "the trial of every generation after the first trial of its simulator, point, condition, N and K (experiments with trials > 1; a generation not listed is trial 0)", Optional: true},
		{File: "point_labels.jsonl", Query: q("publish_point_labels"), About: "every judge's label of each frozen point's real message"},
		{File: "fidelity/rubric_criteria.jsonl", Query: q("publish_rubric_criteria"), present: "publish_rubric_criteria_present", About: "the user-fidelity rubric: each criterion with its quote, family, mode, writer and verifier", Optional: true},
		{File: "fidelity/verdicts.jsonl", Query: q("publish_verdicts"), present: "publish_verdicts_present", About: "every grader's pass, fail or na per (episode, criterion)", Optional: true},
	}
}
