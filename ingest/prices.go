package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"

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
	text := string(b)
	var out []queries.Price
	for _, n := range names {
		m := pf.Models[n]
		date, dateKey := m.ReadOn, n
		if date == "" {
			date, dateKey = pf.ReadOn, ""
		}
		bad := func(key, format string, args ...any) error {
			return &ParseError{Path: path, Line: priceLine(text, n, key), Reason: fmt.Sprintf("model %q: ", n) + fmt.Sprintf(format, args...)}
		}
		switch {
		case m.In == nil || m.Out == nil:
			return nil, bad("", "both in and out ($ per million tokens) are required")
		case math.IsNaN(*m.In) || math.IsInf(*m.In, 0) || *m.In < 0:
			return nil, bad("in", "in = %v: want a price >= 0 ($ per million input tokens)", *m.In)
		case math.IsNaN(*m.Out) || math.IsInf(*m.Out, 0) || *m.Out < 0:
			return nil, bad("out", "out = %v: want a price >= 0 ($ per million output tokens)", *m.Out)
		case date == "":
			return nil, bad("", "no read_on date (when the prices were read)")
		}
		if _, err := time.Parse(time.DateOnly, date); err != nil {
			line := priceLine(text, dateKey, "read_on")
			return nil, &ParseError{Path: path, Line: line, Reason: fmt.Sprintf("read_on = %q: want a date YYYY-MM-DD (when the prices were read)", date)}
		}
		out = append(out, queries.Price{Model: n, PriceIn: *m.In, PriceOut: *m.Out, ReadOn: date, Source: path})
	}
	return out, nil
}

// priceLine is the line of key in the table of model (model "": the
// top level, before any table; key "": the table's header), 0 when it
// cannot be told (a key written in another TOML form).
func priceLine(text, model, key string) int {
	lines := strings.Split(text, "\n")
	header := regexp.MustCompile(`^\s*\[\s*models\s*\.\s*(?:"` + regexp.QuoteMeta(model) + `"|'` + regexp.QuoteMeta(model) + `'|` + regexp.QuoteMeta(model) + `)\s*\]`)
	keyRE := regexp.MustCompile(`^\s*` + regexp.QuoteMeta(key) + `\s*=`)
	in := model == ""
	for i, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimSpace(l), "["):
			if model == "" {
				return 0
			}
			if in {
				return 0
			}
			if header.MatchString(l) {
				if key == "" {
					return i + 1
				}
				in = true
			}
		case in && key != "" && keyRE.MatchString(l):
			return i + 1
		}
	}
	return 0
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
