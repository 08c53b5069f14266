package queries

import (
	"context"
	"database/sql"
	"errors"
)

// EpRunExists reports whether a run (ep_runs) is stored.
func EpRunExists(ctx context.Context, db Querier, runID string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, q("ep_run_exists"), runID).Scan(&n)
	return n > 0, err
}

// EpTaskExists reports whether a task content (ep_tasks.task_key) is stored.
func EpTaskExists(ctx context.Context, db Querier, key string) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, q("ep_task_exists"), key).Scan(&n)
	return n > 0, err
}

// EpEpisodeHash returns a stored episode's content hash; ok is false when
// the episode is not stored.
func EpEpisodeHash(ctx context.Context, db Querier, simulationID string) (hash string, ok bool, err error) {
	err = db.QueryRowContext(ctx, q("ep_episode_hash"), simulationID).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	return hash, err == nil, err
}

// EpDeleteEpisode removes an episode with its messages, tool calls, checks
// and probe findings.
func EpDeleteEpisode(ctx context.Context, db Querier, simulationID string) error {
	for _, name := range []string{"ep_delete_messages", "ep_delete_tool_calls", "ep_delete_checks", "ep_delete_findings", "ep_delete_episode"} {
		if _, err := db.ExecContext(ctx, q(name), simulationID); err != nil {
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
