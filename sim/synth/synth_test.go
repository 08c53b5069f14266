package synth

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// tables are every table Write fills.
var tables = []string{"developers", "repos", "developer_repos", "sessions", "turns", "split_runs", "components",
	"developer_splits", "repo_splits", "session_roles", "eligibility", "point_sets", "points", "simulators",
	"prompt_templates", "generations", "labels"}

func write(t *testing.T, opts Options) (*queries.Workspace, Stats) {
	t.Helper()
	ws, err := queries.Open(context.Background(), "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	st, err := Write(context.Background(), ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ws, st
}

// digest hashes a table's rows in a canonical order, so that equal
// digests mean equal content whatever order the rows were written in.
func digest(t *testing.T, ws *queries.Workspace, table string) string {
	t.Helper()
	h := sha256.New()
	n := 0
	err := queries.Adhoc(context.Background(), ws.Conn(), "SELECT * FROM "+table+" ORDER BY ALL", func(_ []queries.Column, row []any) error {
		fmt.Fprintf(h, "%v\n", row)
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d rows %x", n, h.Sum(nil)[:8])
}

func TestWriteShapeOfSeed000(t *testing.T) {
	ws, st := write(t, Options{Seed: 1})
	t.Logf("%+v", st)
	if st.Eligible != 20 || st.Points != 480 {
		t.Errorf("eligible %d, points %d: want 20 and 480", st.Eligible, st.Points)
	}
	if want := len(Runs()) * 480; st.Generations != want {
		t.Errorf("generations = %d, want %d", st.Generations, want)
	}
	if st.Developers < 180 || st.Developers > 200 || st.Components < 150 || st.Components > 170 {
		t.Errorf("%d developers in %d components, want about 190 in about 160", st.Developers, st.Components)
	}
	t.Run("the split audits clean", func(t *testing.T) {
		f, err := queries.Audit(context.Background(), ws.Conn())
		if err != nil {
			t.Fatal(err)
		}
		if len(f) > 0 {
			t.Errorf("audit findings: %v", f)
		}
	})
	t.Run("every run covers every point, labelled", func(t *testing.T) {
		var unlabelled, runs int
		err := ws.Conn().QueryRowContext(context.Background(), `SELECT
			(SELECT count(*) FROM generations g WHERE NOT EXISTS (SELECT 1 FROM labels l WHERE l.target = 'generation' AND l.target_id = g.id AND l.judge = 'synth')),
			(SELECT count(*) FROM (SELECT DISTINCT simulator, condition, window_n, history_k FROM generations))`).Scan(&unlabelled, &runs)
		if err != nil {
			t.Fatal(err)
		}
		if unlabelled != 0 || runs != len(Runs()) {
			t.Errorf("%d unlabelled generations, %d runs (want 0, %d)", unlabelled, runs, len(Runs()))
		}
	})
}

func TestWriteIsDeterministic(t *testing.T) {
	a, _ := write(t, Options{Seed: 3})
	b, _ := write(t, Options{Seed: 3})
	c, _ := write(t, Options{Seed: 4})
	differs := 0
	for _, tb := range tables {
		da, db, dc := digest(t, a, tb), digest(t, b, tb), digest(t, c, tb)
		if da != db {
			t.Errorf("%s: seed 3 twice gives %s and %s", tb, da, db)
		}
		if da != dc {
			differs++
		}
	}
	if differs < len(tables)/2 {
		t.Errorf("seed 4 differs from seed 3 in only %d tables", differs)
	}
}

func TestWriteRefusesAWorkspaceWithData(t *testing.T) {
	ws, _ := write(t, Options{Seed: 1})
	if _, err := Write(context.Background(), ws, Options{Seed: 2}); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("second Write: %v, want ErrNotEmpty", err)
	}
}

func TestTiltsKeepThePlantedAccuracy(t *testing.T) {
	for _, s := range Planted() {
		for cond, b := range s.Conditions {
			d := b.Tilt.Deltas()
			var sum float64
			for i, m := range MoveMix {
				sum += m * d[i]
			}
			if math.Abs(sum) > 1e-12 {
				t.Errorf("%s %s: sum mu_m delta_m = %g, want 0", s.Name, cond, sum)
			}
		}
	}
}

// TestNoClipping: no planted hit probability leaves [0, 1] in any run, at
// any developer and simulator offset, real move and prior turns, so no
// clipping biases the planted accuracy away from the population mean.
func TestNoClipping(t *testing.T) {
	sims := map[string]Simulator{}
	for _, s := range Planted() {
		sims[s.Name] = s
	}
	for _, r := range Runs() {
		b := sims[r.Simulator].Conditions[r.Condition]
		for _, u := range []float64{-DeveloperSpread, DeveloperSpread} {
			for _, v := range []float64{-SimulatorSpread, SimulatorSpread} {
				for m := range Moves {
					for p := 2; p <= 40; p += 2 {
						if h := HitProbability(b, u, v, m, p, r.WindowN, r.HistoryK); h < 0 || h > 1 {
							t.Fatalf("%+v u=%v v=%v move %s P=%d: hit probability %v", r, u, v, Moves[m], p, h)
						}
					}
				}
			}
		}
	}
}

func TestContextCurvePeaksAtEight(t *testing.T) {
	best := ContextSweepN[0]
	for _, n := range ContextSweepN {
		if ContextCurve(n) > ContextCurve(best) {
			best = n
		}
	}
	if best != PlantedPeak {
		t.Errorf("peak at N = %d, want %d", best, PlantedPeak)
	}
	if ContextCurve(AnchorN) != 0 {
		t.Errorf("g(14) = %v, want 0: the anchor is the leaderboard run", ContextCurve(AnchorN))
	}
	if d := ContextCurve(8) - ContextCurve(1); math.Abs(d-0.14) > 1e-12 {
		t.Errorf("g(8) - g(1) = %v, want 0.14", d)
	}
}
