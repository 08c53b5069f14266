package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"

	"github.com/ub-bench/ub/queries/internal/appender"
)

// SimulatorRow is one simulator's stored definition.
type SimulatorRow struct {
	Name, Backend, Model string
	Params               json.RawMessage
	PriceIn, PriceOut    float64
	BatchDiscount        float64
}

// StoreSimulator records (or updates) a simulator definition.
func StoreSimulator(ctx context.Context, db Querier, s SimulatorRow) error {
	var params any
	if len(s.Params) > 0 {
		params = string(s.Params)
	}
	_, err := db.ExecContext(ctx, q("gen_store_simulator"), s.Name, s.Backend, s.Model, params, s.PriceIn, s.PriceOut, s.BatchDiscount)
	return err
}

// GenerationRow is one generation.
type GenerationRow struct {
	ID, PointID, Simulator, Condition string
	WindowN, HistoryK                 int
	RequestKey                        string
	KeyParts                          json.RawMessage
	Text                              string // "" with Error set
	TokensIn, TokensOut               int
	Cost                              float64
	LatencyMS                         int64
	Error                             string
	PromptVersion, Experiment         string
	// Trial is the sample index of the request (runner.Request.Sample):
	// 0 for the first trial, 1 .. k-1 for the further trials of an
	// experiment with trials = k.
	Trial int
}

// ExistingGeneration is what is stored of a generation.
type ExistingGeneration struct {
	RequestKey string
	KeyParts   json.RawMessage
	OK         bool // has text
}

// ExistingGenerations returns the stored generations of a simulator by id.
func ExistingGenerations(ctx context.Context, db Querier, simulator string) (map[string]ExistingGeneration, error) {
	rows, err := db.QueryContext(ctx, q("gen_existing"), simulator)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]ExistingGeneration{}
	for rows.Next() {
		var id string
		var e ExistingGeneration
		var parts any
		if err := rows.Scan(&id, &e.RequestKey, &parts, &e.OK); err != nil {
			return nil, err
		}
		e.KeyParts = jsonValue(parts)
		out[id] = e
	}
	return out, rows.Err()
}

// GetGeneration returns one stored generation's key, key parts and error;
// ok is false when there is none.
func GetGeneration(ctx context.Context, db Querier, id string) (key string, parts json.RawMessage, genErr string, ok bool, err error) {
	var p any
	err = db.QueryRowContext(ctx, q("gen_get"), id).Scan(&id, &key, &p, &genErr)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil, "", false, nil
	}
	return key, jsonValue(p), genErr, err == nil, err
}

// jsonValue turns a scanned JSON column (DuckDB hands it back decoded) into
// its JSON text again.
func jsonValue(v any) json.RawMessage {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return json.RawMessage(x)
	case []byte:
		return json.RawMessage(x)
	}
	b, _ := json.Marshal(v)
	return b
}

// ReplaceGenerations writes generations, replacing stored ones with the same
// id, in one transaction of a fixed number of statements: the ids are
// appended to a scratch table and deleted in one statement, the rows
// appended.
func ReplaceGenerations(ctx context.Context, ws *Workspace, gens []GenerationRow) error {
	if len(gens) == 0 {
		return nil
	}
	return ws.InTx(ctx, func(c *sql.Conn) error {
		for _, name := range []string{"gen_prepare_ids", "gen_clear_ids"} {
			if _, err := c.ExecContext(ctx, q(name)); err != nil {
				return err
			}
		}
		a, err := ws.appender(ctx, "temp", "main", "generation_ids")
		if err != nil {
			return err
		}
		for _, g := range gens {
			if err := a.AppendRow(g.ID); err != nil {
				a.Close()
				return err
			}
		}
		if err := a.Close(); err != nil {
			return err
		}
		if _, err := c.ExecContext(ctx, q("gen_delete_ids")); err != nil {
			return err
		}
		return appendRowsWith(ctx, ws, "generations", len(gens), func(i int, r *appender.Row) { generationRow(r, gens[i]) })
	})
}

// GenerationCount is how many generations a simulator has under a condition.
type GenerationCount struct {
	Simulator, Condition string
	N, Failed            int
	Cost                 float64
}

// GenerationCounts counts generations per simulator and condition.
func GenerationCounts(ctx context.Context, db Querier) ([]GenerationCount, error) {
	rows, err := db.QueryContext(ctx, q("gen_counts"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GenerationCount
	for rows.Next() {
		var g GenerationCount
		if err := rows.Scan(&g.Simulator, &g.Condition, &g.N, &g.Failed, &g.Cost); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}
