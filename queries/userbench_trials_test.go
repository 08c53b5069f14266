package queries

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestStudyTrials: a setting with trials scores every point once per
// trial, a trial with no generation at a point counting as missing there,
// and the trials are also counted apart (TrialScores) and per point
// (TrialPoints). Every expected count is written by hand from the rows
// below. Both developers' four points have the real move directive.
//
//	simulator s, trials 0 1 2       simulator u, trials 0 1
//	a1 directive directive directive a1 directive (missing)
//	a2 directive critical  critical  a2 directive (failed)
//	b1 approve   inquiry   approve   b1 approve   approve
//	b2 directive critical  directive b2 (missing) directive, unlabelled
func TestStudyTrials(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	db := ws.Conn()
	exec := func(query string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, query, args...); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}
	exec(`INSERT INTO points VALUES ('a1', 'ann', 'test', 's1', 3, 3, false), ('a2', 'ann', 'test', 's1', 5, 5, false),
		('b1', 'bob', 'test', 's2', 3, 3, false), ('b2', 'bob', 'test', 's2', 5, 5, false)`)
	for _, p := range []string{"a1", "a2", "b1", "b2"} {
		exec(`INSERT INTO labels (target, target_id, judge, move) VALUES ('point', $1, 'j', 'directive')`, p)
	}
	gen := func(sim, point string, trial int, move string) {
		t.Helper()
		id := fmt.Sprintf("%s-%s-%d", sim, point, trial)
		var text, errText any = "text", nil
		if move == "failed" {
			text, errText = nil, "boom"
		}
		exec(`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, error, prompt_version, trial)
			VALUES ($1, $2, $3, 'noprofile', 14, 0, $1, '{}', $4, $5, 'v', $6)`, id, point, sim, text, errText, trial)
		if move != "failed" && move != "" {
			exec(`INSERT INTO labels (target, target_id, judge, move) VALUES ('generation', $1, 'j', $2)`, id, move)
		}
	}
	for p, moves := range map[string][]string{
		"a1": {"directive", "directive", "directive"},
		"a2": {"directive", "critical", "critical"},
		"b1": {"approve", "inquiry", "approve"},
		"b2": {"directive", "critical", "directive"},
	} {
		for tr, m := range moves {
			gen("s", p, tr, m)
		}
	}
	gen("u", "a1", 0, "directive")
	gen("u", "a2", 0, "directive")
	gen("u", "a2", 1, "failed")
	gen("u", "b1", 0, "approve")
	gen("u", "b1", 1, "approve")
	gen("u", "b2", 1, "") // unlabelled: not a moment

	st, err := LoadStudy(ctx, db, "j")
	if err != nil {
		t.Fatal(err)
	}
	var settings []string
	for _, s := range st.Settings {
		settings = append(settings, fmt.Sprintf("%s:%d gen, %d trials", s.Simulator, s.Generations, s.Trials))
	}
	if got, want := strings.Join(settings, "; "), "s:12 gen, 3 trials; u:6 gen, 2 trials"; got != want {
		t.Errorf("settings %q, want %q", got, want)
	}
	var scores []string
	for _, s := range st.Scores {
		scores = append(scores, fmt.Sprintf("%s/%s %d/%d f%d m%d u%d", s.Simulator, s.Developer, s.Hits, s.Moments, s.Failed, s.Missing, s.Unlabelled))
	}
	// s: ann hits at a1 x3 and a2 once, bob at b2 twice, of 2 points x 3
	// trials each. u: ann hits a1 and a2 in trial 0, fails a2 in trial 1,
	// misses a1 in trial 1 (4 moments); bob misses b1 twice and b2 in
	// trial 0, b2's trial 1 is unlabelled (3 moments).
	want := "s/ann 4/6 f0 m0 u0; s/bob 2/6 f0 m0 u0; u/ann 2/4 f1 m1 u0; u/bob 0/3 f0 m1 u1"
	if got := strings.Join(scores, "; "); got != want {
		t.Errorf("scores\n%s\nwant\n%s", got, want)
	}
	outcomes := map[string]int{}
	for _, o := range st.Outcomes {
		outcomes[fmt.Sprintf("%s/%s %s>%s", o.Simulator, o.Developer, o.Real, o.Generated)] += o.Count
	}
	wantOut := map[string]int{
		"s/ann directive>directive": 4, "s/ann directive>critical": 2,
		"s/bob directive>approve": 2, "s/bob directive>inquiry": 1, "s/bob directive>directive": 2, "s/bob directive>critical": 1,
		"u/ann directive>directive": 2, "u/ann directive>": 2, // a2 failed, a1 missing in trial 1
		"u/bob directive>approve": 2, "u/bob directive>": 1, // b2 missing in trial 0
	}
	if fmt.Sprint(outcomes) != fmt.Sprint(wantOut) {
		t.Errorf("outcomes\n%v\nwant\n%v", outcomes, wantOut)
	}
	var ts []string
	for _, x := range st.TrialScores {
		ts = append(ts, fmt.Sprintf("%s/%s/%d %d/%d", x.Simulator, x.Developer, x.Trial, x.Hits, x.Moments))
	}
	wantTS := "s/ann/0 2/2; s/ann/1 1/2; s/ann/2 1/2; s/bob/0 1/2; s/bob/1 0/2; s/bob/2 1/2; " +
		"u/ann/0 2/2; u/ann/1 0/2; u/bob/0 0/2; u/bob/1 0/1"
	if got := strings.Join(ts, "; "); got != wantTS {
		t.Errorf("trial scores\n%s\nwant\n%s", got, wantTS)
	}
	var tp []string
	for _, x := range st.TrialPoints {
		tp = append(tp, fmt.Sprintf("%s c%d h%d %v x%d", x.Simulator, x.Trials, x.Hits, x.Disagree, x.Count))
	}
	// s: b1 (0 of 3, moves differ), a2 (1), b2 (2), a1 (3, all alike).
	// u: b1 (0 of 2, alike), a2 (1 of 2, directive and failed); a1 and b2
	// have one counted trial.
	wantTP := "s c3 h0 true x1; s c3 h1 true x1; s c3 h2 true x1; s c3 h3 false x1; u c2 h0 false x1; u c2 h1 true x1"
	if got := strings.Join(tp, "; "); got != wantTP {
		t.Errorf("trial points\n%s\nwant\n%s", got, wantTP)
	}
}

// TestStudySingleTrialHasNoTrialRows: a study of one trial has Trials 1 in
// every setting and no per-trial rows.
func TestStudySingleTrialHasNoTrialRows(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	db := ws.Conn()
	for _, q := range []string{
		`INSERT INTO points VALUES ('a1', 'ann', 'test', 's1', 3, 3, false)`,
		`INSERT INTO labels (target, target_id, judge, move) VALUES ('point', 'a1', 'j', 'directive'), ('generation', 'g', 'j', 'directive')`,
		`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, prompt_version)
			VALUES ('g', 'a1', 's', 'noprofile', 14, 0, 'k', '{}', 'x', 'v')`,
	} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	st, err := LoadStudy(ctx, db, "j")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Settings) != 1 || st.Settings[0].Trials != 1 || len(st.TrialScores) != 0 || len(st.TrialPoints) != 0 {
		t.Errorf("settings %+v, %d trial scores, %d trial points: want 1 trial, none", st.Settings, len(st.TrialScores), len(st.TrialPoints))
	}
	if len(st.Scores) != 1 || st.Scores[0].Hits != 1 || st.Scores[0].Moments != 1 {
		t.Errorf("scores %+v, want 1 hit of 1", st.Scores)
	}
}
