package queries

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"path/filepath"
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

// TestStudyAggregates: the study's lengths count words exactly as Words
// does (Unicode white space: U+00A0, tabs, newlines, ...; these
// generations are written without their words column, so study_cells
// counts them with ub_words), and study_outcomes counts each generation at
// a labelled point by its moves, failed ones and a missing moment for a
// labelled point the setting has no generation at as "", at the anchor
// setting only; study_scores counts the same per developer at every
// setting. The expected moves and counts are written by hand.
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

	// A generation at a point no longer frozen: stale, not scored.
	gen("z1", "p9", "a", "old", nil)
	st, err := LoadStudy(ctx, db, "j")
	if err != nil {
		t.Fatal(err)
	}
	if st.StaleGenerations != 1 {
		t.Errorf("%d stale generations, want 1", st.StaleGenerations)
	}
	var temp int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM duckdb_tables() WHERE temporary`).Scan(&temp); err != nil || temp != 0 {
		t.Errorf("LoadStudy left %d temporary tables (%v)", temp, err)
	}
	if len(st.Points) != 2 || st.Points[0].ID != "p1" || st.Points[0].Real != "approve" || st.Points[1].Real != "inquiry" || !st.Points[1].ConstantDose {
		t.Errorf("points = %+v, want p1 approve, p2 inquiry at a constant dose", st.Points)
	}
	words := map[string]int{}
	for _, l := range st.LengthWords {
		if l.Count != 1 {
			t.Errorf("%s: %d generations of %d words, want 1", l.Simulator, l.Count, l.Words)
		}
		words[l.Simulator] = l.Words
	}
	devWords := map[string]StudyLengthDeveloper{}
	for _, l := range st.LengthDevelopers {
		devWords[l.Simulator] = l
	}
	for i, s := range texts {
		sim := fmt.Sprintf("w%02d", i)
		if got, want := words[sim], Words(s); got != want {
			t.Errorf("study_length_words(%q) = %d words, Words = %d", s, got, want)
		}
		if d := devWords[sim]; d.Developer != "ann" || d.Count != 1 || d.Words != Words(s) {
			t.Errorf("study_length_developers(%q) = %+v, want ann, 1 generation, %d words", s, d, Words(s))
		}
	}
	// a: p1 "yes" has a length, p2 failed has none; b: p1 "hm".
	if len(st.LengthWords) != len(texts)+2 || words["a"] != 1 || words["b"] != 1 {
		t.Errorf("%d length rows, want %d", len(st.LengthWords), len(texts)+2)
	}
	type moveKey struct{ sim, real, gen string }
	got := map[moveKey]int{}
	for _, o := range st.Outcomes {
		if o.Simulator == "a" || o.Simulator == "b" {
			got[moveKey{o.Simulator, o.Real, o.Generated}] += o.Count
		}
	}
	// a: p1 scored, p2 failed; b: p1 unlabelled (not a moment), p2 missing.
	want := map[moveKey]int{
		{"a", "approve", "approve"}: 1,
		{"a", "inquiry", ""}:        1,
		{"b", "inquiry", ""}:        1,
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

// TestGenerationWords: generations.words is the length of the text in
// words (Words) for a generation written through the row writer, NULL
// for one that failed; and migration 0010 fills it for the generations of
// a workspace written before it (a workspace built here at schema 9).
func TestGenerationWords(t *testing.T) {
	ctx := context.Background()
	texts := map[string]string{"g1": "looks good,  go ahead\n", "g2": "x\u00a0y z", "g3": "", "g4": "全角\u3000スペース"}
	check := func(t *testing.T, db Querier) {
		t.Helper()
		rows, err := db.QueryContext(ctx, `SELECT id, words FROM generations ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var id string
			var words sql.NullInt64
			if err := rows.Scan(&id, &words); err != nil {
				t.Fatal(err)
			}
			n++
			text, ok := texts[id]
			switch {
			case !ok && words.Valid: // gx failed: no text
				t.Errorf("%s: words %d, want NULL", id, words.Int64)
			case ok && (!words.Valid || int(words.Int64) != Words(text)):
				t.Errorf("%s: words %v, want %d", id, words, Words(text))
			}
		}
		if n != len(texts)+1 {
			t.Errorf("%d generations, want %d", n, len(texts)+1)
		}
	}
	t.Run("written", func(t *testing.T) {
		ws, err := Open(ctx, "", Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		var gens []GenerationRow
		for id, text := range texts {
			gens = append(gens, GenerationRow{ID: id, PointID: "p", Simulator: "s", Condition: CondNoProfile,
				RequestKey: "k", KeyParts: json.RawMessage("{}"), Text: text, PromptVersion: "v"})
		}
		gens = append(gens, GenerationRow{ID: "gx", PointID: "p", Simulator: "s", Condition: CondNoProfile,
			RequestKey: "k", KeyParts: json.RawMessage("{}"), Text: "partial answer", Error: "timeout", PromptVersion: "v"})
		if err := ReplaceGenerations(ctx, ws, gens); err != nil {
			t.Fatal(err)
		}
		check(t, ws.Conn())
	})
	t.Run("migrated", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "old.duckdb")
		db, err := sql.Open("duckdb", path)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := Migrations()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Version >= 10 {
				break
			}
			if _, err := db.ExecContext(ctx, m.SQL); err != nil {
				t.Fatalf("%s: %v", m.Name, err)
			}
		}
		exec := func(query string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, query, args...); err != nil {
				t.Fatalf("%s: %v", query, err)
			}
		}
		exec(`CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL)`)
		for _, m := range ms[:9] {
			exec(`INSERT INTO schema_migrations VALUES (?, ?)`, m.Version, m.Name)
		}
		for id, text := range texts {
			exec(`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, prompt_version)
				VALUES (?, 'p', 's', 'noprofile', 14, 0, 'k', '{}', ?, 'v')`, id, text)
		}
		exec(`INSERT INTO generations (id, point_id, simulator, condition, window_n, history_k, request_key, key_parts, text, error, prompt_version)
			VALUES ('gx', 'p', 's', 'noprofile', 14, 0, 'k', '{}', NULL, 'timeout', 'v')`)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		ws, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		check(t, ws.Conn())
	})
}
