package reports

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// TestInMemoryTrialsMatchesWorkspace: with three trials, the leaderboard
// and its between-trial spread of the study aggregated in Go (synth.InMemory:
// aggregate and aggregateTrials) equal, cell for cell, those of the same
// study written to a workspace and aggregated in DuckDB (study_scores,
// study_outcomes, study_trial_scores, study_trial_points): two
// implementations of the per-trial counting.
func TestInMemoryTrialsMatchesWorkspace(t *testing.T) {
	st, err := synth.InMemory(synth.MemoryOptions{Seed: 3, Trials: 3})
	if err != nil {
		t.Fatal(err)
	}
	mem := build(t, Prepare(Input{Study: st}), (*Report).leaderboard)
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.Write(ctx, ws, synth.Options{Seed: 3, Trials: 3}); err != nil {
		t.Fatal(err)
	}
	r, err := loadReport(ctx, ws, synth.Judge)
	if err != nil {
		t.Fatal(err)
	}
	db := build(t, r, (*Report).leaderboard)
	if fmt.Sprint(mem.table.rows) != fmt.Sprint(db.table.rows) {
		t.Errorf("in memory:\n%v\nworkspace:\n%v", mem.table.rows, db.table.rows)
	}
	if mem.extra == "" || mem.extra != db.extra {
		t.Errorf("spread in memory:\n%s\nworkspace:\n%s", mem.extra, db.extra)
	}
	// 8 simulators x 2 conditions, each scored 3 times at 480 points.
	if n := strings.Count(db.extra, "| 3 | 480 |"); n != 16 {
		t.Errorf("%d spread rows with 3 trials at 480 points, want 16:\n%s", n, db.extra)
	}
}

// TestAggregateTrialsByHand: the in-memory aggregation of a study with
// trials counts what queries' TestStudyTrials counts in DuckDB, on the same
// rows (written by hand there): both developers' points have the real move
// directive;
//
//	simulator s, trials 0 1 2       simulator u, trials 0 1
//	a1 directive directive directive a1 directive (missing)
//	a2 directive critical  critical  a2 directive (failed)
//	b1 approve   inquiry   approve   b1 approve   approve
//	b2 directive critical  directive b2 (missing) directive, unlabelled
func TestAggregateTrialsByHand(t *testing.T) {
	st := &queries.Study{}
	for _, p := range []struct{ id, dev string }{{"a1", "ann"}, {"a2", "ann"}, {"b1", "bob"}, {"b2", "bob"}} {
		st.Points = append(st.Points, queries.StudyPoint{ID: p.id, Developer: p.dev, Real: "directive"})
	}
	gen := func(sim string, point, trial int, move string) {
		g := queries.StudyGeneration{Point: point, Simulator: sim, Condition: queries.CondNoProfile, N: 14, K: 0, Move: move, Trial: trial, Words: 1}
		if move == "failed" {
			g.Move, g.Failed = "", true
		}
		st.Generations = append(st.Generations, g)
	}
	for p, moves := range [][]string{
		{"directive", "directive", "directive"},
		{"directive", "critical", "critical"},
		{"approve", "inquiry", "approve"},
		{"directive", "critical", "directive"},
	} {
		for tr, m := range moves {
			gen("s", p, tr, m)
		}
	}
	gen("u", 0, 0, "directive")
	gen("u", 1, 0, "directive")
	gen("u", 1, 1, "failed")
	gen("u", 2, 0, "approve")
	gen("u", 2, 1, "approve")
	gen("u", 3, 1, "")
	out := aggregate(st)

	var settings []string
	for _, s := range out.Settings {
		settings = append(settings, fmt.Sprintf("%s:%d gen, %d trials", s.Simulator, s.Generations, s.Trials))
	}
	if got, want := strings.Join(settings, "; "), "s:12 gen, 3 trials; u:6 gen, 2 trials"; got != want {
		t.Errorf("settings %q, want %q", got, want)
	}
	type sums struct{ hits, moments, failed, missing, unlabelled int }
	scores := map[string]*sums{}
	for _, s := range out.Scores {
		k := s.Simulator + "/" + s.Developer
		if scores[k] == nil {
			scores[k] = &sums{}
		}
		x := scores[k]
		x.hits, x.moments, x.failed, x.missing, x.unlabelled = x.hits+s.Hits, x.moments+s.Moments, x.failed+s.Failed, x.missing+s.Missing, x.unlabelled+s.Unlabelled
	}
	var got []string
	for _, k := range []string{"s/ann", "s/bob", "u/ann", "u/bob"} {
		x := scores[k]
		got = append(got, fmt.Sprintf("%s %d/%d f%d m%d u%d", k, x.hits, x.moments, x.failed, x.missing, x.unlabelled))
	}
	want := "s/ann 4/6 f0 m0 u0; s/bob 2/6 f0 m0 u0; u/ann 2/4 f1 m1 u0; u/bob 0/3 f0 m1 u1"
	if g := strings.Join(got, "; "); g != want {
		t.Errorf("scores\n%s\nwant\n%s", g, want)
	}
	var ts []string
	for _, x := range out.TrialScores {
		ts = append(ts, fmt.Sprintf("%s/%s/%d %d/%d", x.Simulator, x.Developer, x.Trial, x.Hits, x.Moments))
	}
	wantTS := "s/ann/0 2/2; s/ann/1 1/2; s/ann/2 1/2; s/bob/0 1/2; s/bob/1 0/2; s/bob/2 1/2; " +
		"u/ann/0 2/2; u/ann/1 0/2; u/bob/0 0/2; u/bob/1 0/1"
	if g := strings.Join(ts, "; "); g != wantTS {
		t.Errorf("trial scores\n%s\nwant\n%s", g, wantTS)
	}
	var tp []string
	for _, x := range out.TrialPoints {
		tp = append(tp, fmt.Sprintf("%s c%d h%d %v x%d", x.Simulator, x.Trials, x.Hits, x.Disagree, x.Count))
	}
	wantTP := "s c3 h0 true x1; s c3 h1 true x1; s c3 h2 true x1; s c3 h3 false x1; u c2 h0 false x1; u c2 h1 true x1"
	if g := strings.Join(tp, "; "); g != wantTP {
		t.Errorf("trial points\n%s\nwant\n%s", g, wantTP)
	}
}
