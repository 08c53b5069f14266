package reports

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// synthReport writes the synthetic study of seed at scale into a new
// workspace at path ("" for memory) and prepares its report as ub report
// does: judge synth, the split, the case-study texts.
func synthReport(tb testing.TB, path string, seed uint64, scale int) *Report {
	tb.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, path, queries.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.Write(ctx, ws, synth.Options{Seed: seed, Scale: scale}); err != nil {
		tb.Fatal(err)
	}
	r, err := loadReport(ctx, ws, synth.Judge)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// loadReport reads and prepares the report of ws for judge.
func loadReport(ctx context.Context, ws *queries.Workspace, judge string) (*Report, error) {
	db := ws.Conn()
	st, err := queries.LoadStudy(ctx, db, judge)
	if err != nil {
		return nil, err
	}
	var s SplitSummary
	if s.Run, err = queries.GetSplitRun(ctx, db); err != nil {
		return nil, err
	}
	if s.Components, err = queries.Components(ctx, db); err != nil {
		return nil, err
	}
	if s.Splits, err = queries.SplitSummary(ctx, db); err != nil {
		return nil, err
	}
	if s.Funnel, err = queries.Funnel(ctx, db); err != nil {
		return nil, err
	}
	if s.Points, err = queries.PointsPerDeveloper(ctx, db); err != nil {
		return nil, err
	}
	r := Prepare(Input{Study: st, Split: &s, JudgeQuality: testQuality()})
	if dev, n, k, ok := r.CaseDeveloper(); ok {
		ct, err := queries.LoadCaseTexts(ctx, db, judge, dev, n, k)
		if err != nil {
			return nil, err
		}
		r.SetCase(&ct)
	}
	return r, nil
}

// goldenFigures are the figures whose SVG is compared byte for byte with
// testdata/NAME.svg (go test ./reports -update rewrites them).
var goldenFigures = []string{"leaderboard", "context-heatmap", "move-breakdown", "judge-coverage"}

func TestGoldenSVG(t *testing.T) {
	t.Parallel()
	r := synthReport(t, "", 1, 1)
	dir := t.TempDir()
	for _, name := range goldenFigures {
		t.Run(name, func(t *testing.T) {
			if _, err := r.WriteFigure(dir, name); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(dir, name+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".svg")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./reports -update)", err)
			}
			if string(got) != string(want) {
				t.Errorf("%s.svg differs from %s (%d bytes against %d); if the change is intended, run go test ./reports -update and look at the figure",
					name, golden, len(got), len(want))
			}
		})
	}
}

func TestWriteAllIsByteIdentical(t *testing.T) {
	t.Parallel()
	r := synthReport(t, "", 2, 1)
	r.in.Episodes = fidelityInput().Episodes // synth writes no episodes: the user-fidelity figures get the hand-made ones
	r.SetFidelity(ufsTestInput())            // and the UFS figures a hand-made graded set
	rs := reviewStatsFixture(t)
	r.in.Review = &rs // and the review figures a hand-made review
	a, b := t.TempDir(), t.TempDir()
	sa, err := r.WriteAll(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Skipped) != 0 || len(sa.Figures) != len(Figures()) {
		t.Errorf("figures %v, skipped %v: want every figure", sa.Figures, sa.Skipped)
	}
	checkStructure(t, a, "UserBench, user fidelity and human review report",
		[]string{"UserBench: next-action prediction", "User fidelity", "Simulator error rate (human review)"})
	sb, err := r.WriteAll(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(sa.Files) != len(sb.Files) {
		t.Fatalf("%d files against %d", len(sa.Files), len(sb.Files))
	}
	for i := range sa.Files {
		x, _ := os.ReadFile(sa.Files[i])
		y, _ := os.ReadFile(sb.Files[i])
		if string(x) != string(y) {
			t.Errorf("%s differs between two runs", filepath.Base(sa.Files[i]))
		}
	}
}

func TestMissingFiguresNameTheCommand(t *testing.T) {
	// A workspace of one session: the UserBench study is present, and
	// every one of its figures lacks its data.
	r := Prepare(Input{Study: &queries.Study{Judge: "builtin", Counts: queries.StudyCounts{Sessions: 1}}})
	sum, err := r.WriteAll(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Figures) != 0 || len(sum.Skipped) != len(figuresOf(StudyUserBench)) {
		t.Fatalf("figures %v, skipped %d", sum.Figures, len(sum.Skipped))
	}
	for _, s := range sum.Skipped {
		if !strings.Contains(s.Reason, "run ub ") {
			t.Errorf("%s: %q names no command", s.Figure, s.Reason)
		}
	}
	if _, err := r.WriteFigure(t.TempDir(), "nope"); err == nil {
		t.Error("an unknown figure gave no error")
	}
}

// figuresOf lists the builders of study, but the named ones.
func figuresOf(study string, except ...string) []builder {
	var out []builder
	for _, b := range builders {
		if b.study == study && !slices.Contains(except, b.name) {
			out = append(out, b)
		}
	}
	return out
}
