package queries

import (
	"context"
	"fmt"
	"testing"
)

// TestWords: words are runs of characters that are not Unicode white
// space; the counts are written by hand.
func TestWords(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"   ", 0},
		{"ok", 1},
		{"looks good,  go ahead\n", 4},
		{"\ta\fb\rc d\v", 4},
		{"naïve café", 2},
		{"x\u00a0y", 2},                // no-break space, as in the real corpus
		{"1\u202f000 files", 3},        // narrow no-break space
		{"全角\u3000スペース", 2},            // ideographic space
		{"line\u2028next\u0085end", 3}, // line separator, next line
		{"zero\u200bwidth", 1},         // U+200B is not white space
		{"bad \xff\xfe utf8", 3},       // invalid bytes are not space
	} {
		if got := Words(tt.in); got != tt.want {
			t.Errorf("Words(%q) = %d, want %d", tt.in, got, tt.want)
		}
		if got := Words([]byte(tt.in)); got != tt.want {
			t.Errorf("Words([]byte(%q)) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

// TestStudyAggregates: study_lengths counts words exactly as Words does
// (Unicode white space: U+00A0, tabs, newlines, ...), and study_outcomes
// sorts each generation at a labelled point into its kind, with a missing
// moment for a labelled point the setting has no generation at, at the
// anchor setting only; study_scores counts the same per developer at every
// setting. The expected kinds and counts are written by hand.
func TestStudyAggregates(t *testing.T) {
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
	exec(`INSERT INTO points VALUES ('p1', 'ann', 'test', 's1', 3, 3, false), ('p2', 'ann', 'test', 's1', 5, 5, true)`)
	exec(`INSERT INTO labels (target, target_id, judge, move) VALUES ('point', 'p1', 'j', 'approve'), ('point', 'p2', 'j', 'inquiry')`)
	texts := []string{
		"", "   ", "ok", "looks good,  go ahead\n", "\ta\fb\rc d\v", "naïve café",
		"x\u00a0y", "1\u202f000 files", "全角\u3000スペース", "line\u2028next\u0085end",
		"zero\u200bwidth", "tab\there\nnew\r\nline", "\u1680a\u2000b\u200ac\u205fd\u2029e",
	}
	gen := func(id, point, sim, text string, errText any) {
		t.Helper()
		exec(`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, error, prompt_version)
			VALUES ($1, $2, $3, 'noprofile', 14, 0, 'k', '{}', $4, $5, 'v')`, id, point, sim, text, errText)
	}
	for i, s := range texts {
		gen(fmt.Sprintf("w%02d", i), "p1", fmt.Sprintf("w%02d", i), s, nil)
	}
	// Simulator "a": p1 labelled, p2 failed. Simulator "b": p1 unlabelled,
	// p2 missing.
	gen("a1", "p1", "a", "yes", nil)
	gen("a2", "p2", "a", "", "boom")
	gen("b1", "p1", "b", "hm", nil)
	exec(`INSERT INTO labels (target, target_id, judge, move) VALUES ('generation', 'a1', 'j', 'approve')`)
	// Off the anchor (N = 1): "a" hits at p2, p1 missing.
	exec(`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, prompt_version)
		VALUES ('a9', 'p2', 'a', 'noprofile', 1, 0, 'k', '{}', 'why?', 'v')`)
	exec(`INSERT INTO labels (target, target_id, judge, move) VALUES ('generation', 'a9', 'j', 'inquiry')`)

	var st Study
	if err := studyAggregates(ctx, db, "j", &st); err != nil {
		t.Fatal(err)
	}
	words := map[string]int{}
	for _, l := range st.Lengths {
		if l.Count != 1 {
			t.Errorf("%s: %d generations of %d words, want 1", l.Simulator, l.Count, l.Words)
		}
		words[l.Simulator] = l.Words
	}
	for i, s := range texts {
		sim := fmt.Sprintf("w%02d", i)
		if got, want := words[sim], Words(s); got != want {
			t.Errorf("study_lengths(%q) = %d words, Words = %d", s, got, want)
		}
	}
	type kindKey struct{ sim, real, gen, kind string }
	got := map[kindKey]int{}
	for _, o := range st.Outcomes {
		if o.Simulator == "a" || o.Simulator == "b" {
			got[kindKey{o.Simulator, o.Real, o.Generated, o.Kind}] += o.Count
		}
	}
	want := map[kindKey]int{
		{"a", "approve", "approve", MomentScored}: 1,
		{"a", "inquiry", "", MomentFailed}:        1,
		{"b", "approve", "", MomentUnlabelled}:    1,
		{"b", "inquiry", "", MomentMissing}:       1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes of a and b = %v, want %v", got, want)
	}
	for _, o := range st.Outcomes {
		if o.N != DefaultN || o.K != DefaultK {
			t.Errorf("outcome off the anchor setting: %+v", o)
		}
	}
	// Scores: per setting and developer (ann: p1 approve, p2 inquiry at a
	// constant dose), written by hand from the generations above; the
	// w.. simulators have one unlabelled generation at p1 each.
	scores := map[string]StudyScores{}
	for _, x := range st.Scores {
		key := fmt.Sprintf("%s@%d", x.Simulator, x.N)
		if _, dup := scores[key]; dup || x.Developer != "ann" {
			t.Errorf("unexpected scores row %+v", x)
		}
		scores[key] = x
	}
	wantScores := map[string]StudyScores{
		"a@14":   {Hits: 1, Moments: 2, DoseMoments: 1, Failed: 1},
		"a@1":    {Hits: 1, Moments: 2, DoseHits: 1, DoseMoments: 1, Missing: 1},
		"b@14":   {Moments: 1, DoseMoments: 1, Missing: 1, Unlabelled: 1},
		"w00@14": {Moments: 1, DoseMoments: 1, Missing: 1, Unlabelled: 1},
	}
	if len(scores) != len(texts)+3 {
		t.Errorf("%d scores rows, want %d", len(scores), len(texts)+3)
	}
	for key, w := range wantScores {
		g := scores[key]
		g.Simulator, g.Condition, g.N, g.K, g.Developer = "", "", 0, 0, ""
		if g != w {
			t.Errorf("scores of %s = %+v, want %+v", key, g, w)
		}
	}
	for _, s := range st.Settings {
		if s.Simulator == "a" && s.N == DefaultN && s.Generations != 2 {
			t.Errorf("setting a: %d generations, want 2", s.Generations)
		}
	}
}
