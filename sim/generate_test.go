package sim_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/sim"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
	"github.com/ub-bench/ub/sim/runner/runnertest"
	"github.com/ub-bench/ub/sim/simtest"
	"github.com/ub-bench/ub/sim/synth"
)

// synthWorkspace is a workspace of the test's own holding the synthetic
// study of seed 3 (sessions, split, frozen points): real inputs for the
// steps. The study is written once per test binary (synthFixture) and each
// test opens a copy of that file.
func synthWorkspace(t *testing.T) (*queries.Workspace, synth.Stats) {
	t.Helper()
	ctx := context.Background()
	synthFixture.once.Do(func() {
		synthFixture.path = filepath.Join(fixtures, "synth-3.duckdb")
		ws, err := queries.Open(ctx, synthFixture.path, queries.Options{})
		if err != nil {
			synthFixture.err = err
			return
		}
		synthFixture.st, synthFixture.err = synth.Write(ctx, ws, synth.Options{Seed: 3})
		if err := ws.Close(); synthFixture.err == nil {
			synthFixture.err = err
		}
	})
	if synthFixture.err != nil {
		t.Fatal(synthFixture.err)
	}
	b, err := os.ReadFile(synthFixture.path)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ub.duckdb")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := queries.Open(ctx, path, queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws, synthFixture.st
}

// synthFixture is the study synthWorkspace copies, written once.
var synthFixture struct {
	once sync.Once
	path string
	st   synth.Stats
	err  error
}

// fixtures is the directory, made by TestMain and removed after the tests,
// of the fixtures built once per test binary.
var fixtures string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sim-test-fixtures-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtures = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestGenerateOfflineWritesEachCellOnceAndKeepsWhatIsStored(t *testing.T) {
	ctx := context.Background()
	ws, st := synthWorkspace(t)
	e := sim.Experiment{Name: "t", Seed: 1, Conditions: []string{sim.CondProfile, sim.CondNoProfile},
		Simulators: []sim.SimulatorConfig{{Name: "mix", Backend: "mix"}, {Name: "retrieve", Backend: "retrieve"}}}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	var done []string
	res, err := sim.Generate(ctx, ws, e, sim.GenerateOptions{Done: func(s sim.SimulatorConfig, sum sim.SimSummary) { done = append(done, s.Name) }})
	if err != nil {
		t.Fatal(err)
	}
	if res.Points != st.Points || res.Points == 0 {
		t.Fatalf("points %d, want the %d frozen ones", res.Points, st.Points)
	}
	if got := strings.Join(done, ","); got != "mix,retrieve" {
		t.Errorf("Done called for %q, want mix,retrieve in experiment order", got)
	}
	// One generation per point and condition (2), all written, none sent.
	for _, s := range res.Simulators {
		if s.Generations != 2*st.Points || s.Written != s.Generations || s.Unchanged != 0 || s.Sent != 0 || s.Failed != 0 {
			t.Errorf("%s: %+v, want %d generations written, none unchanged or sent", s.Simulator, s, 2*st.Points)
		}
	}
	// Again: everything stored with the same key stays.
	res, err = sim.Generate(ctx, ws, e, sim.GenerateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Simulators {
		if s.Written != 0 || s.Unchanged != s.Generations {
			t.Errorf("second run %s: %+v, want nothing written", s.Simulator, s)
		}
	}
	// PrepareGeneration gives the key Generate stored.
	points, err := queries.Points(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	// (Generate reads the points' contexts 256 at a time, PrepareGeneration
	// one alone: the first and last points of the first batch, the first of
	// the next and the last point.)
	if len(points) < 300 {
		t.Fatalf("%d points: too few to span two batches", len(points))
	}
	cell := sim.Cell{Simulator: "retrieve", Condition: sim.CondNoProfile, WindowN: sim.DefaultWindow}
	for _, i := range []int{0, 255, 256, len(points) - 1} {
		g, err := sim.PrepareGeneration(ctx, ws.Conn(), e.Simulators[1], cell, points[i].ID, 0, sim.InputsOptions{})
		if err != nil {
			t.Fatal(err)
		}
		key, _, _, ok, err := queries.GetGeneration(ctx, ws.Conn(), g.ID)
		if err != nil || !ok {
			t.Fatalf("generation %s: ok %v, err %v", g.ID, ok, err)
		}
		if key != g.Request.Key() || g.Text == "" || g.Point.ID != points[i].ID {
			t.Errorf("prepared %+v: key %s, stored %s", g, g.Request.Key(), key)
		}
	}
}

// TestGenerateNamesAPointWithoutItsTurn: a frozen point whose session no
// longer holds its turn stops Generate with an error that names the point
// and the turn, whether it is the first point of a batch of contexts or
// one after it.
func TestGenerateNamesAPointWithoutItsTurn(t *testing.T) {
	ctx := context.Background()
	ws, _ := synthWorkspace(t)
	points, err := queries.Points(ctx, ws.Conn())
	if err != nil || len(points) < 10 {
		t.Fatalf("%d points, %v", len(points), err)
	}
	e := sim.Experiment{Name: "t", Seed: 1, Conditions: []string{sim.CondNoProfile},
		Simulators: []sim.SimulatorConfig{{Name: "retrieve", Backend: "retrieve"}}}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{7, 0} {
		p := points[i]
		if _, err := ws.Conn().ExecContext(ctx, `DELETE FROM turns WHERE session_id = ? AND idx = ?`, p.SessionID, p.TurnIdx); err != nil {
			t.Fatal(err)
		}
		_, err := sim.Generate(ctx, ws, e, sim.GenerateOptions{})
		want := fmt.Sprintf("point %s: session %s has no turn %d", p.ID, p.SessionID, p.TurnIdx)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("point %d without its turn: %v, want %q", i, err, want)
		}
	}
}

func TestGenerateModelSimulatorSendsOnceThenNothing(t *testing.T) {
	ctx := context.Background()
	ws, st := synthWorkspace(t)
	e := sim.Experiment{Name: "t", Conditions: []string{sim.CondNoProfile, sim.CondTerse},
		Simulators: []sim.SimulatorConfig{{Name: "m", Backend: "openai", Model: "fake", PriceIn: 2, PriceOut: 8}}}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	var preflight, progress int
	opts := sim.GenerateOptions{Client: runnertest.Echo(&calls),
		Preflight: func(sim.SimulatorConfig) error { preflight++; return nil },
		Progress: func(string) (func(runner.RunStats), func()) {
			progress++
			return nil, func() {}
		}}
	res, err := sim.Generate(ctx, ws, e, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Simulators[0]
	// Two conditions per point; echo answers 1000 tokens in and 500 out:
	// $0.006 each at $2/$8 per million.
	n := 2 * st.Points
	if s.Generations != n || s.Written != n || s.Sent != int(calls.Load()) || s.Sent == 0 || s.Failed != 0 {
		t.Errorf("first run %+v (calls %d), want %d generations written", s, calls.Load(), n)
	}
	if s.TokensIn != int64(1000*n) || s.TokensOut != int64(500*n) {
		t.Errorf("tokens %d/%d, want %d/%d", s.TokensIn, s.TokensOut, 1000*n, 500*n)
	}
	if preflight != 1 || progress != 1 {
		t.Errorf("preflight %d, progress %d: want each once", preflight, progress)
	}
	before := calls.Load()
	res, err = sim.Generate(ctx, ws, e, opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Simulators[0]; s.Unchanged != n || s.Written != 0 || calls.Load() != before {
		t.Errorf("second run %+v, %d new calls: want all unchanged, nothing sent", s, calls.Load()-before)
	}
	// A refused preflight stops the run before anything is sent.
	e.Simulators[0].Model = "other"
	_, err = sim.Generate(ctx, ws, e, sim.GenerateOptions{Client: runnertest.Echo(&calls), Preflight: func(sim.SimulatorConfig) error { return errNoKey }})
	if !errors.Is(err, errNoKey) || calls.Load() != before {
		t.Errorf("err %v, %d calls: want the preflight's error and no call", err, calls.Load()-before)
	}
}

var errNoKey = errors.New("no key")

func TestGenerateWithoutPointsIsNoSplit(t *testing.T) {
	ws, err := queries.Open(context.Background(), "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	e := sim.Experiment{Simulators: []sim.SimulatorConfig{{Name: "mix", Backend: "mix"}}}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Generate(context.Background(), ws, e, sim.GenerateOptions{}); !errors.Is(err, queries.ErrNoSplit) {
		t.Errorf("err %v, want ErrNoSplit", err)
	}
}

// TestGenerateTrialsPayOnlyForNewTrials raises trials from 1 to 3 on a
// workspace whose first trial is stored: for a model simulator behind the
// fake endpoint (simtest) only trials 2 and 3 are requested, each once per
// point and condition, and a re-run with trials = 3 requests nothing; for
// the offline mix only trials 2 and 3 are written, and mix draws again in
// them (some trial's text differs from the first's).
func TestGenerateTrialsPayOnlyForNewTrials(t *testing.T) {
	ctx := context.Background()
	ws, st := synthWorkspace(t)
	srv := simtest.New(simtest.Options{})
	defer srv.Close()
	e := sim.Experiment{Name: "t", Seed: 1, Conditions: []string{sim.CondNoProfile},
		Simulators: []sim.SimulatorConfig{{Name: "m", Backend: "openai", Model: "fake", BaseURL: srv.BaseURL()},
			{Name: "mix", Backend: "mix"}}}
	if err := e.Check(); err != nil {
		t.Fatal(err)
	}
	n := st.Points // one condition
	run := func(trials int) map[string]sim.SimSummary {
		t.Helper()
		e.Trials = trials
		res, err := sim.Generate(ctx, ws, e, sim.GenerateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]sim.SimSummary{}
		for _, s := range res.Simulators {
			out[s.Simulator] = s
		}
		return out
	}
	sent := func() int { return len(srv.Log()) }

	first := run(1)
	if s := first["m"]; s.Generations != n || s.Sent != n || sent() != n {
		t.Fatalf("trials 1: %+v, %d requests at the endpoint; want %d sent", s, sent(), n)
	}
	three := run(3)
	if s := three["m"]; s.Generations != 3*n || s.Unchanged != n || s.Written != 2*n || s.Sent != 2*n || sent() != 3*n {
		t.Errorf("trials 1 -> 3: %+v, %d requests at the endpoint in all; want %d unchanged, %d sent and written", s, sent(), n, 2*n)
	}
	if s := three["mix"]; s.Generations != 3*n || s.Unchanged != n || s.Written != 2*n {
		t.Errorf("mix trials 1 -> 3: %+v, want %d unchanged and %d written", s, n, 2*n)
	}
	again := run(3)
	if s := again["m"]; s.Unchanged != 3*n || s.Written != 0 || s.Sent != 0 || sent() != 3*n {
		t.Errorf("trials 3 again: %+v, %d requests in all; want nothing sent", s, sent())
	}

	// What is stored: three trials per point, each with its own request key
	// and the request's sample index as its trial.
	var rows, trials, keys, points int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*), count(DISTINCT trial), count(DISTINCT request_key), count(DISTINCT point_id)
		FROM generations WHERE simulator = 'm'`).Scan(&rows, &trials, &keys, &points); err != nil {
		t.Fatal(err)
	}
	if rows != 3*n || trials != 3 || keys != 3*n || points != n {
		t.Errorf("stored %d rows, %d trials, %d keys, %d points; want %d, 3, %d, %d", rows, trials, keys, points, 3*n, 3*n, n)
	}
	var badSample int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM generations g JOIN responses r ON r.key = g.request_key
		WHERE g.simulator = 'm' AND CAST(json_extract(r.request, '$.sample') AS INTEGER) <> g.trial`).Scan(&badSample); err != nil {
		t.Fatal(err)
	}
	if badSample != 0 {
		t.Errorf("%d generations whose request's sample index is not their trial", badSample)
	}
	var differ int
	if err := ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM generations a JOIN generations b
		ON b.point_id = a.point_id AND b.simulator = a.simulator AND b.condition = a.condition AND b.trial > 0
		WHERE a.simulator = 'mix' AND a.trial = 0 AND b.text IS DISTINCT FROM a.text`).Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if differ == 0 {
		t.Error("mix: every later trial repeats the first trial's text; want fresh draws")
	}
}
