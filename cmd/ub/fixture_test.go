package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// fixtures is the directory, made by TestMain and removed after the tests,
// where the fixtures built once for the whole test binary live.
var fixtures string

// withFixtures runs the tests with a fresh fixtures directory.
type withFixtures struct{ m *testing.M }

func (w withFixtures) Run() int {
	dir, err := os.MkdirTemp("", "ub-test-fixtures-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fixtures = dir
	defer os.RemoveAll(dir)
	os.Setenv("UB_TEST_KEY", testAPIKey)
	return w.m.Run()
}

// testAPIKey is the API key in UB_TEST_KEY, a variable no test changes:
// TestGenerateAgainstServer checks that it is never stored or printed.
const testAPIKey = "sk-test-secret-123"

// demoFixture is the directory `ub demo --dir` left, made once.
var demoFixture struct {
	once sync.Once
	dir  string
	err  error
}

// demoDir puts at dir what `ub demo --dir dir` leaves there (the demo's
// corpus, workspace, review files and report): a copy of one demo the test
// binary runs once, in-process, the first time a test asks. The demo is
// deterministic, so the copy holds the same rows as a demo of its own
// would; only the source_file paths stored at ingest name the first
// demo's corpus (which stays in place until the tests end). The tests of
// the demo itself (testdata/script/demo*.txtar) run `ub demo`.
func demoDir(t fataler, dir string) {
	t.Helper()
	if err := os.CopyFS(dir, os.DirFS(demoFixtureDir(t))); err != nil {
		t.Fatalf("copy the demo fixture: %v", err)
	}
}

// demoFixtureDir is the directory of the one demo the test binary runs,
// run the first time a test asks. Tests copy it (demoDir); only
// TestDemoReproducible, which is not parallel, writes into it: a second
// demo run, which leaves the same files and rows.
func demoFixtureDir(t fataler) string {
	t.Helper()
	demoFixture.once.Do(func() {
		d := filepath.Join(fixtures, "demo", "d")
		var out, errb strings.Builder
		if code := run([]string{"ub", "demo", "--dir", d}, testStreams(&out, &errb)); code != 0 {
			demoFixture.err = fmt.Errorf("demo: exit %d\n%s\n%s", code, out.String(), errb.String())
			return
		}
		demoFixture.dir = d
	})
	if demoFixture.err != nil {
		t.Fatal(demoFixture.err)
	}
	return demoFixture.dir
}

// scriptDemoDir is the testscript command `demo-dir DIR`: demoDir in the
// script's work directory, for the scripts that start from the demo's
// workspace rather than test the demo.
func scriptDemoDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: demo-dir DIR")
	}
	demoDir(scriptTB{ts}, ts.MkAbs(args[0]))
}

// fataler is the part of testing.TB that demoDir uses.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// scriptTB is a fataler on a TestScript.
type scriptTB struct{ ts *testscript.TestScript }

func (s scriptTB) Helper()                           {}
func (s scriptTB) Fatal(args ...any)                 { s.ts.Fatalf("%s", fmt.Sprint(args...)) }
func (s scriptTB) Fatalf(format string, args ...any) { s.ts.Fatalf(format, args...) }

// testStreams are the streams of a ub run in-process by a test: no input,
// out and err captured, and the runner on an instantClock.
func testStreams(out, err *strings.Builder) *streams {
	return &streams{in: strings.NewReader(""), out: out, err: err, clock: &instantClock{}}
}

// instantClock is the model runner's clock in the in-process tests: it
// reads the wall clock plus every wait it skipped, and Sleep moves it on at
// once instead of waiting. So the backoffs, Retry-After pauses and rate-limit
// waits of a test server's fault plan take no real time, while the runner
// sees them pass in the order it asked for them (its waits themselves are
// tested against a fake clock in sim: TestRun*).
type instantClock struct {
	mu      sync.Mutex
	skipped time.Duration
}

func (c *instantClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.skipped)
}

func (c *instantClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.mu.Lock()
		c.skipped += d
		c.mu.Unlock()
	}
	return nil
}
