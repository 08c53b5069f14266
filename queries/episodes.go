package queries

import (
	"context"
	"database/sql"
)

// EpDeleteEpisode removes an episode with its messages, tool calls, checks,
// probe findings and probe applicability rows.
func EpDeleteEpisode(ctx context.Context, db Querier, simulationID string) error {
	for _, name := range []string{"ep_delete_attempts", "ep_delete_messages", "ep_delete_tool_calls", "ep_delete_checks", "ep_delete_findings", "ep_delete_applicable", "ep_delete_episode"} {
		if _, err := db.ExecContext(ctx, q(name), simulationID); err != nil {
			return err
		}
	}
	return nil
}

// EpDeleteTaskFolder deletes what a task folder stored of a domain: its
// splits (split_tasks.json) when splits, its policy (policy.md) when
// policy.
func EpDeleteTaskFolder(ctx context.Context, db Querier, domain string, splits, policy bool) error {
	if splits {
		if _, err := db.ExecContext(ctx, q("ep_delete_task_splits"), domain); err != nil {
			return err
		}
	}
	if policy {
		if _, err := db.ExecContext(ctx, q("ep_delete_domain"), domain); err != nil {
			return err
		}
	}
	return nil
}

// Price is one model's price per million tokens, as read on a date.
type Price struct {
	Model             string
	PriceIn, PriceOut float64 // $ per million tokens
	ReadOn, Source    string
}

// EpStorePrices replaces the stored price of each model given.
func EpStorePrices(ctx context.Context, db Querier, ps []Price) error {
	for _, p := range ps {
		if _, err := db.ExecContext(ctx, q("ep_delete_price"), p.Model); err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, q("ep_add_price"), p.Model, p.PriceIn, p.PriceOut, p.ReadOn, p.Source); err != nil {
			return err
		}
	}
	return nil
}

// EpCount is the number of stored episodes.
func EpCount(ctx context.Context, db Querier) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, q("ep_count")).Scan(&n)
	return n, err
}

// EpCountNotRun is the number of stored placeholders of simulations that
// never ran (ub.Episode.NotRun), of those EpCount counts.
func EpCountNotRun(ctx context.Context, db Querier) (int64, error) {
	var n int64
	err := db.QueryRowContext(ctx, q("ep_count_not_run")).Scan(&n)
	return n, err
}

// EpStored returns every stored episode's content hash by simulation id,
// and the stored run ids and task keys.
func EpStored(ctx context.Context, db Querier) (hashes map[string]string, runs, tasks map[string]bool, err error) {
	hashes, runs, tasks = map[string]string{}, map[string]bool{}, map[string]bool{}
	err = epScan(ctx, db, "ep_stored_episodes", func(r *sql.Rows) error {
		var id, h string
		err := r.Scan(&id, &h)
		hashes[id] = h
		return err
	})
	if err != nil {
		return nil, nil, nil, err
	}
	err = epScan(ctx, db, "ep_stored_keys", func(r *sql.Rows) error {
		var kind, key string
		err := r.Scan(&kind, &key)
		if kind == "run" {
			runs[key] = true
		} else {
			tasks[key] = true
		}
		return err
	})
	return hashes, runs, tasks, err
}

// EpDiscardedAttempts returns, by kept simulation id, how many attempts
// were discarded before it (ep_attempts); episodes with none are absent.
func EpDiscardedAttempts(ctx context.Context, db Querier) (map[string]int, error) {
	out := map[string]int{}
	err := epScan(ctx, db, "ep_discarded_attempts", func(r *sql.Rows) error {
		var id string
		var n int
		err := r.Scan(&id, &n)
		out[id] = n
		return err
	})
	return out, err
}

// TaskSplitTask is one task of one of tau2's task splits of a domain
// (split_tasks.json, stored by ub ingest --tasks).
type TaskSplitTask struct {
	Split, Domain, TaskID string
}

// TaskSplitTasks lists every task of every stored task split, by split,
// domain and task.
func TaskSplitTasks(ctx context.Context, db Querier) ([]TaskSplitTask, error) {
	rows, err := db.QueryContext(ctx, q("ep_task_split_tasks"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TaskSplitTask
	for rows.Next() {
		var t TaskSplitTask
		if err := rows.Scan(&t.Split, &t.Domain, &t.TaskID); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
