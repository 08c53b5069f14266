package queries

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ub-bench/ub/queries/internal/appender"
)

// SessionRow is one row of sessions, for RowWriter.Session: a parsed
// ub.Session as the table holds it (its content hash and turn count
// computed, its meta encoded).
type SessionRow struct {
	ID, Developer, Repo string
	StartedAt           time.Time // zero is NULL
	Format, SourceFile  string
	Line                int
	ContentHash         string
	Turns               int
	Meta                json.RawMessage // nil is NULL
}

// RowWriter appends typed rows to the workspace's tables through DuckDB
// appenders, one per table, opened on first use: only queries knows the
// column order of a table, so a migration that adds a column changes this
// file and no caller. The rows are visible once Close returns; call it
// inside the transaction that should hold them (Workspace.InTx).
//
// The first error is kept: every later call returns it and appends
// nothing, and Close returns it.
type RowWriter struct {
	ctx   context.Context
	ws    *Workspace
	apps  map[string]*tableAppender
	order []string
	err   error
	// staged maps a table to the temporary table its rows go to instead
	// (StageProbeResults).
	staged map[string]string
}

// stage sends the rows of each table of to to its temporary table; the
// tables' appenders must not be open yet.
func (w *RowWriter) stage(to map[string]string) { w.staged = to }

// tableAppender is a table's appender and the rows given to it since it
// was last flushed.
type tableAppender struct {
	*appender.Appender
	pending int
}

// NewRowWriter returns a RowWriter on ws.
func NewRowWriter(ctx context.Context, ws *Workspace) *RowWriter {
	return &RowWriter{ctx: ctx, ws: ws, apps: map[string]*tableAppender{}}
}

func (w *RowWriter) append(table string, vals ...driver.Value) error {
	a, err := w.open(table)
	if err != nil {
		return err
	}
	return w.appended(table, a, a.AppendRow(vals...))
}

// appendWith appends a row of table that set fills.
func (w *RowWriter) appendWith(table string, set func(*appender.Row)) error {
	a, err := w.open(table)
	if err != nil {
		return err
	}
	r := a.Row()
	set(&r)
	return w.appended(table, a, r.End())
}

// open returns the appender of table, opening it on first use.
func (w *RowWriter) open(table string) (*tableAppender, error) {
	if w.err != nil {
		return nil, w.err
	}
	a := w.apps[table]
	if a == nil {
		var app *appender.Appender
		var err error
		if tmp, ok := w.staged[table]; ok {
			app, err = w.ws.appender(w.ctx, "temp", "main", tmp)
		} else {
			app, err = w.ws.tableAppender(w.ctx, table)
		}
		if err != nil {
			w.err = err
			return nil, err
		}
		a = &tableAppender{Appender: app}
		w.apps[table] = a
		w.order = append(w.order, table)
	}
	return a, nil
}

// appended records the outcome of a row appended to table.
func (w *RowWriter) appended(table string, a *tableAppender, err error) error {
	if err != nil {
		w.err = fmt.Errorf("%s: %w", table, err)
	}
	a.pending++
	return w.err
}

// Fail makes err the writer's first error, unless it has one: every later
// call appends nothing and returns it (a caller whose transaction failed
// to begin).
func (w *RowWriter) Fail(err error) {
	if w.err == nil {
		w.err = err
	}
}

// FlushLarge flushes, in the order they were opened, the appenders given
// at least min rows since they were last flushed, and keeps them open;
// it returns the first error. The rows flushed are in the transaction
// (visible to its queries); an appender copies what it is given into a
// buffer of its own, and into the table only when flushed.
func (w *RowWriter) FlushLarge(min int) error {
	for _, t := range w.order {
		a := w.apps[t]
		if w.err != nil || a.pending < min {
			continue
		}
		if err := a.Flush(); err != nil {
			w.err = fmt.Errorf("%s: %w", t, err)
		}
		a.pending = 0
	}
	return w.err
}

// Close flushes and closes every appender, in the order they were opened,
// and returns the first error.
func (w *RowWriter) Close() error {
	for _, t := range w.order {
		if err := w.apps[t].Close(); err != nil && w.err == nil {
			w.err = fmt.Errorf("%s: %w", t, err)
		}
	}
	w.apps, w.order = map[string]*tableAppender{}, nil
	return w.err
}

func nullable[T comparable](v T) driver.Value {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

func nullJSON(b json.RawMessage) driver.Value {
	if b == nil {
		return nil
	}
	return b
}

// Developer appends a row of developers.
func (w *RowWriter) Developer(name string) error { return w.append("developers", name) }

// Repo appends a row of repos.
func (w *RowWriter) Repo(name string) error { return w.append("repos", name) }

// DeveloperRepo appends an edge of the developer <-> repository graph;
// source says where it was seen ("session", "manifest").
func (w *RowWriter) DeveloperRepo(developer, repo, source string) error {
	return w.append("developer_repos", developer, repo, source)
}

// Session appends a row of sessions.
func (w *RowWriter) Session(s SessionRow) error {
	a, err := w.open("sessions")
	if err != nil {
		return err
	}
	r := a.Row()
	r.String(s.ID).String(s.Developer).String(s.Repo).TimeOrNull(s.StartedAt).String(s.Format).String(s.SourceFile).
		Int32(int32(s.Line)).String(s.ContentHash).Int32(int32(s.Turns)).Value(nullJSON(s.Meta))
	return w.appended("sessions", a, r.End())
}

// Turn appends a row of turns.
func (w *RowWriter) Turn(t TurnRow) error {
	a, err := w.open("turns")
	if err != nil {
		return err
	}
	r := a.Row()
	r.String(t.SessionID).Int32(int32(t.Idx)).String(t.Role).String(t.Text).TimeOrNull(t.TS).Bool(t.IsCommand).
		Value(nullJSON(t.Meta))
	return w.appended("turns", a, r.End())
}

// Simulator appends a row of simulators (a new simulator: StoreSimulator
// updates one).
func (w *RowWriter) Simulator(s SimulatorRow) error {
	return w.append("simulators", s.Name, s.Backend, s.Model, nullJSON(s.Params), s.PriceIn, s.PriceOut, s.BatchDiscount)
}

// PromptTemplate appends a row of prompt_templates.
func (w *RowWriter) PromptTemplate(version, name, text string) error {
	return w.append("prompt_templates", version, name, text)
}

// Generation appends a row of generations; Text is stored as NULL when
// Error is set, Error and Experiment "" as NULL, and words is the length
// of Text in words (Words; NULL with Text).
func (w *RowWriter) Generation(g GenerationRow) error {
	return w.appendWith("generations", func(r *appender.Row) { generationRow(r, g) })
}

func generationRow(r *appender.Row, g GenerationRow) {
	r.String(g.ID).String(g.PointID).String(g.Simulator).String(g.Condition).Int32(int32(g.WindowN)).
		Int32(int32(g.HistoryK)).String(g.RequestKey).Value(g.KeyParts)
	if g.Error != "" {
		r.Value(nil)
	} else {
		r.String(g.Text)
	}
	r.Int32(int32(g.TokensIn)).Int32(int32(g.TokensOut)).Float64(g.Cost).Int32(int32(g.LatencyMS)).
		StringOrNull(g.Error).String(g.PromptVersion).StringOrNull(g.Experiment)
	if g.Error != "" {
		r.Value(nil)
	} else {
		r.Int32(int32(Words(g.Text)))
	}
	r.Int32(int32(g.Trial))
}

// Label appends a row of labels; Label7, PromptVersion, RequestKey and Raw
// "" are stored as NULL.
func (w *RowWriter) Label(l Label) error {
	return w.appendWith("labels", func(r *appender.Row) { labelRow(r, l) })
}

func labelRow(r *appender.Row, l Label) {
	r.String(l.Target).String(l.TargetID).String(l.Judge).String(l.Move).StringOrNull(l.Label7).
		StringOrNull(l.PromptVersion).StringOrNull(l.RequestKey).StringOrNull(l.Raw)
	if l.Confidence != 0 {
		r.Float64(l.Confidence)
	} else {
		r.Value(nil)
	}
	r.StringOrNull(l.DecidedBy)
}
