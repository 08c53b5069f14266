package reports

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// synthStudy loads the synthetic study of seed 1 at scale 1 as ub report
// does, but with its generations one by one instead of aggregated, for the
// degenerate variants below.
func synthStudy(t *testing.T) *queries.Study {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.Write(ctx, ws, synth.Options{Seed: 1, Scale: 1}); err != nil {
		t.Fatal(err)
	}
	st, err := queries.LoadStudy(ctx, ws.Conn(), synth.Judge)
	if err != nil {
		t.Fatal(err)
	}
	if st.Generations, err = queries.LoadGenerations(ctx, ws.Conn(), synth.Judge, st.Points); err != nil {
		t.Fatal(err)
	}
	st.Settings, st.Scores, st.Outcomes, st.LengthWords, st.LengthDevelopers = nil, nil, nil, nil, nil
	return st
}

// keepDevelopers is st with only the points of the first n developers and
// their generations (Point indices renumbered).
func keepDevelopers(st queries.Study, n int) queries.Study {
	devs := map[string]bool{}
	idx := map[int]int{}
	var pts []queries.StudyPoint
	for i, p := range st.Points {
		if !devs[p.Developer] {
			if len(devs) == n {
				continue
			}
			devs[p.Developer] = true
		}
		idx[i] = len(pts)
		pts = append(pts, p)
	}
	var gens []queries.StudyGeneration
	for _, g := range st.Generations {
		if j, ok := idx[g.Point]; ok {
			g.Point = j
			gens = append(gens, g)
		}
	}
	st.Points, st.Generations = pts, gens
	return st
}

// TestDegenerateStudiesRender is defect 2 of issue 9: ub report hung
// forever (a NaN interval made a NaN axis bound, and gonum/plot's tick
// search never ended) when one developer was scored. For every degenerate
// study each figure must be drawn or skipped with a reason, within a time
// limit, and no non-finite number may reach a figure file.
func TestDegenerateStudiesRender(t *testing.T) {
	t.Parallel()
	base := synthStudy(t)
	cases := []struct {
		name string
		mod  func(queries.Study) queries.Study
	}{
		{"one developer", func(st queries.Study) queries.Study { return keepDevelopers(st, 1) }},
		{"two developers", func(st queries.Study) queries.Study { return keepDevelopers(st, 2) }},
		{"no generations", func(st queries.Study) queries.Study { st.Generations = nil; return st }},
		{"no points", func(st queries.Study) queries.Study { st.Points, st.Generations = nil, nil; return st }},
		{"every generation failed", func(st queries.Study) queries.Study {
			gens := append([]queries.StudyGeneration(nil), st.Generations...)
			for i := range gens {
				gens[i].Failed, gens[i].Move, gens[i].Words = true, "", 0
			}
			st.Generations = gens
			return st
		}},
		{"every label the same move", func(st queries.Study) queries.Study {
			pts := append([]queries.StudyPoint(nil), st.Points...)
			for i := range pts {
				pts[i].Real = "directive"
			}
			gens := append([]queries.StudyGeneration(nil), st.Generations...)
			for i := range gens {
				if gens[i].Move != "" {
					gens[i].Move = "directive"
				}
			}
			st.Points, st.Generations = pts, gens
			return st
		}},
		{"a single N", func(st queries.Study) queries.Study {
			var gens []queries.StudyGeneration
			for _, g := range st.Generations {
				if g.N == defaultN {
					gens = append(gens, g)
				}
			}
			st.Generations = gens
			return st
		}},
		{"one developer at a single N", func(st queries.Study) queries.Study {
			st = keepDevelopers(st, 1)
			var gens []queries.StudyGeneration
			for _, g := range st.Generations {
				if g.N == defaultN && g.K == defaultK {
					gens = append(gens, g)
				}
			}
			st.Generations = gens
			return st
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := c.mod(*base)
			dir := t.TempDir()
			type result struct {
				sum Summary
				err error
			}
			done := make(chan result, 1)
			go func() {
				s, err := Prepare(Input{Study: &st}).WriteAll(dir)
				done <- result{s, err}
			}()
			var res result
			select {
			case res = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("WriteAll did not finish in 30 s (a non-finite axis bound makes gonum/plot's tick search loop)")
			}
			if res.err != nil {
				t.Fatalf("WriteAll: %v", res.err)
			}
			// Only the UserBench study's figures are drawn or skipped: the
			// workspace holds no episode and no review.
			if got, want := len(res.sum.Figures)+len(res.sum.Skipped), len(figuresOf(StudyUserBench)); got != want {
				t.Errorf("%d figures drawn or skipped, want %d", got, want)
			}
			for _, s := range res.sum.Skipped {
				if strings.TrimSpace(s.Reason) == "" {
					t.Errorf("%s skipped without a reason", s.Figure)
				}
			}
			for _, f := range res.sum.Files {
				if filepath.Ext(f) != ".svg" {
					continue
				}
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				if s := string(b); strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
					t.Errorf("%s holds a non-finite number", filepath.Base(f))
				}
			}
		})
	}
}
