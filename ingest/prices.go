package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/BurntSushi/toml"

	"github.com/ub-bench/ub/queries"
)

// A price table (ub ingest --prices FILE.toml) gives, per model, the $ per
// million input and output tokens and the date the prices were read:
//
//	read_on = "2025-08-01"          # the date for every model below
//	[models."gpt-4.1"]
//	in = 2.00
//	out = 8.00
//	[models."gpt-4o"]
//	in = 2.50
//	out = 10.00
//	read_on = "2025-06-01"          # a model may carry its own date
//
// Model names are the user simulator's llm as the result file records it
// (ep_runs.user_model). The episodes view estimates a simulation's cost from
// its user messages' tokens when the file records no user_cost > 0.
type priceFile struct {
	ReadOn string `toml:"read_on"`
	Models map[string]struct {
		In     *float64 `toml:"in"`
		Out    *float64 `toml:"out"`
		ReadOn string   `toml:"read_on"`
	} `toml:"models"`
}

// ReadPrices reads a price table. Errors name the file and line.
func ReadPrices(path string) ([]queries.Price, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var pf priceFile
	md, err := toml.Decode(string(b), &pf)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ParseError{Path: path, Line: pe.Position.Line, Reason: pe.Message}
		}
		return nil, &ParseError{Path: path, Reason: err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, &ParseError{Path: path, Reason: fmt.Sprintf("unknown key %q (want read_on and [models.\"NAME\"] with in, out, read_on)", und[0].String())}
	}
	names := make([]string, 0, len(pf.Models))
	for n := range pf.Models {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, &ParseError{Path: path, Reason: "no [models.\"NAME\"] table"}
	}
	var out []queries.Price
	for _, n := range names {
		m := pf.Models[n]
		date := m.ReadOn
		if date == "" {
			date = pf.ReadOn
		}
		switch {
		case m.In == nil || m.Out == nil:
			return nil, &ParseError{Path: path, Reason: fmt.Sprintf("model %q: both in and out ($ per million tokens) are required", n)}
		case *m.In < 0 || *m.Out < 0:
			return nil, &ParseError{Path: path, Reason: fmt.Sprintf("model %q: a negative price", n)}
		case date == "":
			return nil, &ParseError{Path: path, Reason: fmt.Sprintf("model %q: no read_on date (when the prices were read)", n)}
		}
		out = append(out, queries.Price{Model: n, PriceIn: *m.In, PriceOut: *m.Out, ReadOn: date, Source: path})
	}
	return out, nil
}

// StorePrices reads a price table and stores it in one transaction,
// replacing the prices of the models it names.
func StorePrices(ctx context.Context, ws *queries.Workspace, path string) ([]queries.Price, error) {
	ps, err := ReadPrices(path)
	if err != nil {
		return nil, err
	}
	err = ws.InTx(ctx, func(c *sql.Conn) error { return queries.EpStorePrices(ctx, c, ps) })
	return ps, err
}
