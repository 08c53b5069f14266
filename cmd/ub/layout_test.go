package main

import (
	"path/filepath"
	"sort"
	"testing"

	"github.com/ub-bench/ub/reports/layout"
)

// checkFigureDirs fails the test for every problem the layout check of
// reports/layout finds in an SVG of dirs (a text overprinting another,
// leaving the canvas or flush with its edge, a text on a data mark, a mark
// leaving the canvas, a legend over a data mark), and when dirs hold
// fewer than least SVGs; it returns the figures' names.
func checkFigureDirs(t *testing.T, least int, dirs ...string) []string {
	t.Helper()
	var svgs []string
	for _, d := range dirs {
		s, _ := filepath.Glob(filepath.Join(d, "*.svg"))
		svgs = append(svgs, s...)
	}
	if len(svgs) < least {
		t.Fatalf("%v: %d figures, want at least %d", dirs, len(svgs), least)
	}
	var names []string
	for _, path := range svgs {
		pic, err := layout.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pic.Problems(1) {
			t.Errorf("%s: %s", filepath.Base(path), p)
		}
		names = append(names, filepath.Base(path))
	}
	sort.Strings(names)
	return names
}

// TestDemoFiguresRead: every figure ub demo draws, in its report and its
// review, passes the layout check, as reports' TestFiguresRead checks the
// figures of both synthetic studies drawn there.
func TestDemoFiguresRead(t *testing.T) {
	dir := demoFixtureDir(t) // what ub demo left, read only
	names := checkFigureDirs(t, 12, filepath.Join(dir, "report"), filepath.Join(dir, "review"))
	t.Logf("%d figures: %v", len(names), names)
}

// TestStudyFiguresRead: the figures ub report draws from each synthetic
// study made by ub synth, and from a workspace holding only tau2-bench
// airline result files of the shared corpus with their probes, rubrics
// and verdicts, pass the layout check; each draws its study's figures.
func TestStudyFiguresRead(t *testing.T) {
	corpus := filepath.Join(sharedCorpus(), "tau2")
	for _, tc := range []struct {
		name  string
		steps [][]string
		want  []string // figures among those drawn
	}{
		{"userbench", [][]string{{"synth"}}, []string{"leaderboard.svg", "profile-effect.svg", "split-summary.svg", "case-study.svg"}},
		{"fidelity", [][]string{{"synth", "--study", "fidelity"}}, []string{"agent-effort.svg", "disclosure-rerank.svg", "reward-range.svg", "ufs-frontier.svg", "reward-fidelity.svg"}},
		{"tau2 airline", [][]string{
			{"ingest", filepath.Join(corpus, "results", "airline__*.json")},
			{"probes"},
			{"rubrics", "import", filepath.Join(corpus, "fidelity", "rubrics.jsonl")},
			{"verdicts", "import", "--grader", "mine", filepath.Join(corpus, "fidelity", "verdicts", "*.jsonl")},
		}, []string{"agent-effort.svg", "disclosure-rerank.svg", "probe-rates.svg", "reward-range.svg", "ufs-frontier.svg"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "ub.duckdb")
			for _, step := range append(tc.steps, []string{"report", "--out", filepath.Join(dir, "report")}) {
				var args []string
				for _, a := range step {
					if m, _ := filepath.Glob(a); len(m) > 0 && a != m[0] {
						args = append(args, m...) // a corpus pattern, expanded as a shell would
						continue
					}
					args = append(args, a)
				}
				if code, _, errs := ub(t, append([]string{"--db", db}, args...)...); code != 0 {
					t.Fatalf("ub %v: exit %d: %s", step, code, errs)
				}
			}
			names := checkFigureDirs(t, len(tc.want), filepath.Join(dir, "report"))
			have := map[string]bool{}
			for _, n := range names {
				have[n] = true
			}
			for _, w := range tc.want {
				if !have[w] {
					t.Errorf("%s not drawn (drawn: %v)", w, names)
				}
			}
		})
	}
}
