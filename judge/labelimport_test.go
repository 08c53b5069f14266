package judge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestReadLabels: on a workspace without points, generations or turns,
// every good label is unmatched; a line that is not JSON, an unknown move,
// an unknown fine label and a target labelled twice are refused by line.
func TestReadLabels(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	path := filepath.Join(t.TempDir(), "l.jsonl")
	in := `{"id": "a", "label": "inquiry"}
{"id": "b", "label": "critical", "fine": "nope"}
not json
{"id": "c", "label": "shout"}
{"id": "a", "label": "approve"}
{"id": "d", "label": "DIRECTIVE"}
`
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	imp, err := ReadLabels(ctx, ws.Conn(), path, "imported:l", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range imp.Labels {
		got = append(got, l.Target+" "+l.TargetID+" "+l.Move+" "+l.Judge)
	}
	if want := "message a inquiry imported:l|message d directive imported:l"; strings.Join(got, "|") != want {
		t.Errorf("labels %q, want %q", strings.Join(got, "|"), want)
	}
	// Unmatched counts the repeated line 5 too: it is counted before the
	// repeat is found (a file with bad lines is not imported at all).
	if imp.Unmatched != 3 || imp.OnPoints != 0 || imp.OnMessages != 0 {
		t.Errorf("counts %+v", imp)
	}
	wantBad := []string{path + ":2: ", path + ":3: invalid JSON", path + ":4: ", path + ":5: label of message a repeats line 1"}
	if len(imp.Bad) != len(wantBad) {
		t.Fatalf("bad %q", imp.Bad)
	}
	for i, w := range wantBad {
		if !strings.HasPrefix(imp.Bad[i], w) {
			t.Errorf("bad line %d: %q, want prefix %q", i, imp.Bad[i], w)
		}
	}
}

// TestReadLabelMessages: messages by id; a broken line names its place.
func TestReadLabelMessages(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "m.jsonl")
	os.WriteFile(good, []byte(`{"id": "x", "repo": "r", "session_start": "2025-01-01T00:00:00Z", "message": "fix it"}`+"\n"), 0o644)
	ms, err := ReadLabelMessages(good)
	if err != nil || ms["x"] != (LabelMessage{"r", "2025-01-01T00:00:00Z", "fix it"}) {
		t.Errorf("%v %v", ms, err)
	}
	bad := filepath.Join(dir, "b.jsonl")
	os.WriteFile(bad, []byte("{\"id\": \"x\"}\n{oops\n"), 0o644)
	if _, err := ReadLabelMessages(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":2: invalid JSON") {
		t.Errorf("bad: %v", err)
	}
}

// TestAgreeJudgesNothingInCommon: two judges without a common target are
// an error naming them, and no pair is reported.
func TestAgreeJudgesNothingInCommon(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	n := 0
	err = AgreeJudges(ctx, ws.Conn(), []string{"x", "y"}, func(JudgePair) error { n++; return nil })
	if err == nil || err.Error() != "agree: judges x and y labelled no target in common (see ub agree --list)" || n != 0 {
		t.Errorf("%v, %d pairs", err, n)
	}
}
