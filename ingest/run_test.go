package ingest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

func memWorkspace(t testing.TB) *queries.Workspace {
	t.Helper()
	ws, err := queries.Open(context.Background(), "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func count(t testing.TB, ws *queries.Workspace, query string, args ...any) int {
	t.Helper()
	var n int
	if err := ws.Conn().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func TestRunCanonicalJSONL(t *testing.T) {
	ws := memWorkspace(t)
	ctx := context.Background()
	st, err := Run(ctx, ws, []string{"testdata/jsonl/good.jsonl"}, Options{NewProber: testProber})
	if err != nil {
		t.Fatal(err)
	}
	// good.jsonl: 3 sessions with a developer turn (s1, s2, one without id),
	// one without (skipped), 3+4+2 = 9 turns.
	if st.Sessions != 3 || st.Turns != 9 || st.Skipped["no developer message"] != 1 {
		t.Errorf("stats = %+v; want 3 sessions, 9 turns, 1 skipped", st)
	}
	if got := count(t, ws, `SELECT count(*) FROM turns WHERE is_command`); got != 1 {
		t.Errorf("commands = %d, want 1", got)
	}
	if got := count(t, ws, `SELECT count(*) FROM moments`); got != 2 {
		// s1 turn 2 and s2 turn 3 follow an agent turn; s2 turn 0 is a command
		// and ben's message follows only a system turn.
		t.Errorf("moments = %d, want 2", got)
	}
	// meta is stored as a JSON object, not as a string holding JSON.
	if got := count(t, ws, `SELECT count(*) FROM turns WHERE (meta->>'tool') = 'bash' AND json_type(meta) = 'OBJECT'`); got != 1 {
		t.Errorf("turns with meta.tool = bash: %d, want 1", got)
	}
	if got := count(t, ws, `SELECT count(*) FROM developer_repos WHERE source = 'session'`); got != 2 {
		t.Errorf("edges = %d, want 2", got)
	}

	t.Run("re-ingest adds nothing", func(t *testing.T) {
		st, err := Run(ctx, ws, []string{"testdata/jsonl/good.jsonl"}, Options{NewProber: testProber})
		if err != nil {
			t.Fatal(err)
		}
		if st.Sessions != 0 || st.Turns != 0 || st.Unchanged != 3 {
			t.Errorf("second run = %+v; want 0 added, 3 unchanged", st)
		}
		if got := count(t, ws, `SELECT count(*) FROM turns`); got != 9 {
			t.Errorf("turns = %d, want 9", got)
		}
	})

	t.Run("grown session replaces the stored one", func(t *testing.T) {
		grown := `{"id":"s1","developer":"ana","repo":"ana/kiln","started_at":"2025-03-01T10:00:00Z","turns":[{"role":"developer","text":"add a retry to the upload loop"},{"role":"agent","text":"Added a retry with backoff."},{"role":"developer","text":"thanks, but it still times out on big files"},{"role":"agent","text":"Raised the timeout."}]}` + "\n"
		st, err := Run(ctx, ws, []string{"-"}, Options{Stdin: strings.NewReader(grown)})
		if err != nil {
			t.Fatal(err)
		}
		if st.Replaced != 1 || st.Sessions != 0 || st.Turns != 1 {
			t.Errorf("stats = %+v; want 1 replaced, 1 turn net", st)
		}
		if got := count(t, ws, `SELECT count(*) FROM turns WHERE session_id = 's1'`); got != 4 {
			t.Errorf("s1 turns = %d, want 4", got)
		}
		// The shorter copy is now superseded, whatever the order.
		st, _ = Run(ctx, ws, []string{"testdata/jsonl/good.jsonl"}, Options{NewProber: testProber})
		if st.Superseded != 1 || st.Unchanged != 2 {
			t.Errorf("stats = %+v; want 1 superseded, 2 unchanged", st)
		}
	})
}

func TestRunBadInput(t *testing.T) {
	ws := memWorkspace(t)
	ctx := context.Background()
	st, err := Run(ctx, ws, []string{"testdata/jsonl"}, Options{NewProber: testProber})
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want ErrBadInput", err)
	}
	want := []string{
		"testdata/jsonl/bad.jsonl:2: turn 0: role \"boss\" is not developer, agent, tool or system",
		"testdata/jsonl/bad.jsonl:3: turn 0: missing \"role\"",
		"testdata/jsonl/bad.jsonl:5: truncated JSON line",
		"testdata/jsonl/badutf8.jsonl:1: invalid UTF-8 (byte 86)", // 0xe9 then no continuation byte
		"testdata/jsonl/blob.jsonl:1: binary file (NUL byte at offset 0)",
	}
	got := append([]string(nil), st.Errors...)
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The good lines of every file still land: b1, b4, u2 and good.jsonl's 3.
	if st.Sessions != 6 {
		t.Errorf("sessions = %d, want 6", st.Sessions)
	}
	if got := count(t, ws, `SELECT count(*) FROM ingest_errors`); got != 5 {
		t.Errorf("ingest_errors rows = %d, want 5", got)
	}
	// A second run replaces each file's errors instead of piling them up.
	Run(ctx, ws, []string{"testdata/jsonl"}, Options{NewProber: testProber})
	if got := count(t, ws, `SELECT count(*) FROM ingest_errors`); got != 5 {
		t.Errorf("ingest_errors rows after re-run = %d, want 5", got)
	}
}

// TestRunReadsAFileNamedTwiceOnce: a file named twice, and found again in
// a folder also named (by another spelling of its path), is read once: its
// bad lines are reported and stored once, and the batch holds what
// TestRunBadInput's does.
func TestRunReadsAFileNamedTwiceOnce(t *testing.T) {
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{"testdata/jsonl/bad.jsonl", "testdata/jsonl/bad.jsonl", "./testdata/jsonl"},
		Options{NewProber: testProber})
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want ErrBadInput", err)
	}
	if len(st.Errors) != 5 || st.Sessions != 6 {
		t.Errorf("%d errors, %d sessions; want 5 and 6:\n%s", len(st.Errors), st.Sessions, strings.Join(st.Errors, "\n"))
	}
	if got := count(t, ws, `SELECT count(*) FROM ingest_errors`); got != 5 {
		t.Errorf("ingest_errors rows = %d, want 5", got)
	}
}

func TestRunFailFastStopsAfterFirstBadFile(t *testing.T) {
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{"testdata/jsonl/bad.jsonl", "testdata/jsonl/good.jsonl"}, Options{FailFast: true})
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v", err)
	}
	if st.Files != 1 || st.Sessions != 2 {
		t.Errorf("stats = %+v; want 1 file, its 2 good sessions", st)
	}
}

func TestRunManifestEdges(t *testing.T) {
	ws := memWorkspace(t)
	dir := t.TempDir()
	man := filepath.Join(dir, "manifest.jsonl")
	os.WriteFile(man, []byte(`{"repo":"ana/kiln","authors":["Ana K","Bo"]}`+"\n"+`{"repo":"zed/empty","authors":[]}`+"\nnot json\n"), 0o644)
	st, err := Run(context.Background(), ws, []string{"testdata/jsonl/good.jsonl"}, Options{Manifest: man})
	if !errors.Is(err, ErrBadInput) || len(st.Errors) != 1 || !strings.HasSuffix(st.Errors[0], "manifest.jsonl:3: invalid JSON: invalid character 'o' in literal null (expecting 'u')") {
		t.Fatalf("err = %v, errors = %q", err, st.Errors)
	}
	if got := count(t, ws, `SELECT count(*) FROM developer_repos WHERE source = 'manifest' AND repo = 'ana/kiln'`); got != 2 {
		t.Errorf("manifest edges = %d, want 2", got)
	}
	if got := count(t, ws, `SELECT count(*) FROM repos WHERE name = 'zed/empty'`); got != 1 {
		t.Errorf("repo without authors not recorded")
	}
	// ana, ben, Ana K, Bo
	if st.Developers != 4 {
		t.Errorf("developers = %d, want 4", st.Developers)
	}
}

func TestRunRollsBackAFailedBatch(t *testing.T) {
	ws := memWorkspace(t)
	ctx := context.Background()
	// A session whose meta cannot be stored would fail inside the
	// transaction; simulate a write failure by dropping the turns table.
	if _, err := ws.Conn().ExecContext(ctx, `DROP VIEW moments; DROP TABLE turns`); err != nil {
		t.Fatal(err)
	}
	_, err := Run(ctx, ws, []string{"testdata/jsonl/good.jsonl"}, Options{NewProber: testProber})
	if err == nil || errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want a write error", err)
	}
	if got := count(t, ws, `SELECT count(*) FROM sessions`); got != 0 {
		t.Errorf("sessions = %d after a failed batch, want 0 (nothing half-written)", got)
	}
}

// TestRunSameContentOtherIDIsKept: two sessions with their own ids and the
// same content are both kept, and a grown copy of one does not lose the
// other (whatever the order).
func TestRunSameContentOtherIDIsKept(t *testing.T) {
	x := `{"id":"X","developer":"d","repo":"d/r","turns":[{"role":"developer","text":"hi"},{"role":"agent","text":"ok"}]}`
	y := `{"id":"Y","developer":"d","repo":"d/r","turns":[{"role":"developer","text":"hi"},{"role":"agent","text":"ok"}]}`
	xg := `{"id":"X","developer":"d","repo":"d/r","turns":[{"role":"developer","text":"hi"},{"role":"agent","text":"ok"},{"role":"developer","text":"more"}]}`
	for _, order := range [][]string{{x, y, xg}, {y, x, xg}, {xg, y, x}} {
		ws := memWorkspace(t)
		if _, err := Run(context.Background(), ws, []string{"-"}, Options{Stdin: strings.NewReader(strings.Join(order, "\n") + "\n")}); err != nil {
			t.Fatal(err)
		}
		if got := count(t, ws, `SELECT count(*) FROM sessions`); got != 2 {
			t.Errorf("order %d: %d sessions, want X (grown) and Y", len(order), got)
		}
		if got := count(t, ws, `SELECT n_turns FROM sessions WHERE id = 'X'`); got != 3 {
			t.Errorf("X has %d turns, want the grown 3", got)
		}
	}
}

// TestRunReplacedIdentityLeavesNoGhost: a grown copy of a session under
// another developer replaces it and takes the old developer's edge with it.
func TestRunReplacedIdentityLeavesNoGhost(t *testing.T) {
	ws := memWorkspace(t)
	ctx := context.Background()
	old := `{"id":"S","developer":"ana","repo":"ana/r","turns":[{"role":"developer","text":"hi"}]}` + "\n"
	grown := `{"id":"S","developer":"zed","repo":"ana/r","turns":[{"role":"developer","text":"hi"},{"role":"agent","text":"ok"}]}` + "\n"
	Run(ctx, ws, []string{"-"}, Options{Stdin: strings.NewReader(old)})
	st, err := Run(ctx, ws, []string{"-"}, Options{Stdin: strings.NewReader(grown)})
	if err != nil || st.Replaced != 1 {
		t.Fatalf("replace: %+v %v", st, err)
	}
	if got := count(t, ws, `SELECT count(*) FROM developer_repos WHERE developer = 'ana'`); got != 0 {
		t.Errorf("ana keeps %d edges", got)
	}
	if got := count(t, ws, `SELECT count(*) FROM developers WHERE name = 'ana'`); got != 0 {
		t.Error("ana is still a developer")
	}
	if got := count(t, ws, `SELECT count(*) FROM developer_repos WHERE developer = 'zed' AND repo = 'ana/r'`); got != 1 {
		t.Errorf("zed has %d edges, want 1", got)
	}
}

// TestRunUnreadableFolderIsOneBadInputLine is defect 5 of issue 9: one
// unreadable subdirectory aborted the whole ingest (exit 1, nothing
// ingested). It must be one "path: reason" line, like a bad file, with the
// rest ingested. The walk is made to fail on the folder named "locked" (a
// chmod 000 does not stop root, who runs CI).
func TestRunUnreadableFolderIsOneBadInputLine(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile("testdata/jsonl/good.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/good.jsonl", "locked/hidden.jsonl"} {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	locked := filepath.Join(dir, "locked")
	old := walkDir
	t.Cleanup(func() { walkDir = old })
	walkDir = func(root string, fn fs.WalkDirFunc) error {
		return old(root, func(path string, d fs.DirEntry, err error) error {
			if path != locked || err != nil {
				return fn(path, d, err)
			}
			// As WalkDir does for a folder whose ReadDir fails: a first call,
			// then a second with the error.
			if err := fn(path, d, nil); err != nil {
				return err
			}
			if err := fn(path, d, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}); err != nil {
				return err
			}
			return filepath.SkipDir
		})
	}
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{dir}, Options{NewProber: testProber})
	if !errors.Is(err, ErrBadInput) {
		t.Fatalf("err = %v, want ErrBadInput", err)
	}
	if want := []string{locked + ": permission denied"}; !reflect.DeepEqual(st.Errors, want) {
		t.Errorf("errors = %q, want %q", st.Errors, want)
	}
	if st.Sessions != 3 {
		t.Errorf("sessions = %d, want good.jsonl's 3", st.Sessions)
	}
	if got := count(t, ws, `SELECT count(*) FROM ingest_errors`); got != 1 {
		t.Errorf("ingest_errors rows = %d, want 1", got)
	}
}

// TestRunCountsOnlyWhatIsCommitted is defect 9 of issue 9: after a failed
// commit the summary still said "N added". A unique index on turn texts
// makes the batch's write fail after its sessions were counted; the stats
// must then match what the workspace holds.
func TestRunCountsOnlyWhatIsCommitted(t *testing.T) {
	ws := memWorkspace(t)
	ctx := context.Background()
	if _, err := ws.Conn().ExecContext(ctx, `CREATE UNIQUE INDEX one_text ON turns (text)`); err != nil {
		t.Fatal(err)
	}
	in := `{"developer":"ana","repo":"ana/kiln","started_at":"2025-03-01T10:00:00Z","turns":[{"role":"developer","text":"add a retry"},{"role":"agent","text":"Done."}]}
{"developer":"ana","repo":"ana/kiln","started_at":"2025-03-02T10:00:00Z","turns":[{"role":"developer","text":"now the tests"},{"role":"agent","text":"Done."}]}
`
	st, err := Run(ctx, ws, []string{"-"}, Options{Stdin: strings.NewReader(in)})
	if err == nil {
		t.Fatal("the write did not fail: the test's unique index is not enforced")
	}
	stored := count(t, ws, `SELECT count(*) FROM sessions`)
	turns := count(t, ws, `SELECT count(*) FROM turns`)
	if st.Sessions != stored || int(st.Turns) != turns || int(st.TotalSess) != stored {
		t.Errorf("stats say %d sessions, %d turns added (%d in the workspace); the workspace holds %d sessions, %d turns",
			st.Sessions, st.Turns, st.TotalSess, stored, turns)
	}
}

// TestRunCopiesAcrossBatches: in a workspace that held no sessions, a
// session read again after the writer has taken other batches (sessions of
// more than sessBatchBytes of text lie between) is recognised as the copy
// of one written in the same run: unchanged, replaced by a longer copy, or
// superseded by a shorter one. decide looks up only the ids the run has
// written there, and must not miss these.
func TestRunCopiesAcrossBatches(t *testing.T) {
	session := func(id string, turns int) string {
		var ts []string
		for i := 0; i < turns; i++ {
			role := "developer"
			if i%2 == 1 {
				role = "agent"
			}
			ts = append(ts, `{"role":"`+role+`","text":"turn `+strconv.Itoa(i)+` of `+id+`"}`)
		}
		return `{"id":"` + id + `","developer":"ana","repo":"ana/kiln","turns":[` + strings.Join(ts, ",") + "]}\n"
	}
	var in strings.Builder
	in.WriteString(session("same", 2))
	in.WriteString(session("grows", 2))
	in.WriteString(session("shrinks", 4))
	filler := strings.Repeat("lorem ipsum ", 10000) // 120 kB a turn
	fillers := 2*sessBatchBytes/len(filler) + 1
	for i := 0; i < fillers; i++ {
		in.WriteString(`{"id":"filler` + strconv.Itoa(i) + `","developer":"ana","repo":"ana/kiln","turns":[{"role":"developer","text":"` + filler + `"}]}` + "\n")
	}
	in.WriteString(session("same", 2))
	in.WriteString(session("grows", 4))
	in.WriteString(session("shrinks", 2))
	ws := memWorkspace(t)
	st, err := Run(context.Background(), ws, []string{"-"}, Options{Stdin: strings.NewReader(in.String())})
	if err != nil {
		t.Fatal(err)
	}
	if st.Unchanged != 1 || st.Replaced != 1 || st.Superseded != 1 || st.Sessions != 3+fillers {
		t.Errorf("stats = %+v; want 1 unchanged, 1 replaced, 1 superseded, %d sessions", st, 3+fillers)
	}
	for id, want := range map[string]int{"same": 2, "grows": 4, "shrinks": 4} {
		if got := count(t, ws, `SELECT count(*) FROM turns WHERE session_id = ?`, id); got != want {
			t.Errorf("%s: %d turns stored, want %d", id, got, want)
		}
	}
	if got := count(t, ws, `SELECT count(*) FROM sessions`); got != 3+fillers {
		t.Errorf("%d sessions stored, want %d", got, 3+fillers)
	}
}

// TestRunClearsErrorsItRecorded: a file's errors are cleared before it is
// read again within one run too, in a later transaction (the writer skips
// the clearing statement only for files with no error stored, in the
// workspace or by the run), so a file given twice leaves its errors once.
func TestRunClearsErrorsItRecorded(t *testing.T) {
	ws := memWorkspace(t)
	ctx := context.Background()
	bad := "testdata/jsonl/bad.jsonl"
	// BatchTurns 1: each file in batches of its own.
	Run(ctx, ws, []string{bad, "testdata/jsonl/good.jsonl", bad}, Options{NewProber: testProber, BatchTurns: 1})
	if got := count(t, ws, `SELECT count(*) FROM ingest_errors`); got != 3 {
		t.Errorf("ingest_errors rows = %d, want bad.jsonl's 3", got)
	}
}
