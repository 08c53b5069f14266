package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ub-bench/ub/queries"
)

func TestMain(m *testing.M) {
	// The tests' ub has a fixed version and commit, so that no output a
	// test compares (manifest.json, ub --version) depends on the commit
	// the tests were built from.
	version, commit = "test", "test"
	// A child of TestGenerateSurvivesKill9: run ub with the given arguments.
	if a := os.Getenv("UB_TEST_MAIN_ARGS"); a != "" {
		var args []string
		json.Unmarshal([]byte(a), &args)
		code := run(append([]string{"ub"}, args...), defaultStreams())
		// A child of a memory test (TestSQLMemoryBounded, TestProbesMemoryFlat): write the peak resident set of
		// this process since it started (Linux's VmHWM; the rusage of a
		// child Go starts counts the parent's peak too).
		if f := os.Getenv("UB_TEST_PEAK_RSS"); f != "" {
			if st, err := os.ReadFile("/proc/self/status"); err == nil {
				for _, l := range strings.Split(string(st), "\n") {
					if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
						os.WriteFile(f, []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), 0o644)
					}
				}
			}
		}
		os.Exit(code)
	}
	// A child of TestWorkspaceLock: hold a workspace open until killed.
	if p := os.Getenv("UB_TEST_HOLD_WORKSPACE"); p != "" {
		ws, err := queries.Open(context.Background(), p, queries.Options{})
		if err != nil {
			os.Exit(1)
		}
		os.WriteFile(p+".held", nil, 0o644)
		time.Sleep(time.Minute)
		ws.Close()
		os.Exit(0)
	}
	testscript.Main(withFixtures{m}, map[string]func(){
		"ub": func() {
			code := Main()
			// ep_verdicts holds one row per key after every ub
			// (verdict_keys_test.go); exit 97 says it did not.
			if msg := scriptVerdictKeys(); msg != "" {
				fmt.Fprintln(os.Stderr, "ub test: "+msg)
				os.Exit(97)
			}
			os.Exit(code)
		},
	})
}

// TestScripts runs the end-to-end CLI scripts in testdata/script against
// the real entry point.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			wd, _ := os.Getwd()
			env.Setenv("TESTDATA", filepath.Join(wd, "..", "..", "ingest", "testdata"))
			env.Setenv("NO_COLOR", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// ubexit CODE ub ARGS...: run the command, which must exit with
			// CODE (the README's exit-code table is the contract); its
			// stdout and stderr are checked by the lines after it.
			"ubexit": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: ubexit CODE COMMAND [ARGS...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("ubexit: %v", err)
				}
				got := 0
				var ee *exec.ExitError
				if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
					got = ee.ExitCode()
				} else if err != nil {
					ts.Fatalf("ubexit: %v", err)
				}
				if got != want {
					ts.Fatalf("exit code %d, want %d", got, want)
				}
			},
			"demo-dir": scriptDemoDir,
		},
	})
}

// TestWorkspaceLock: a second process writing a held workspace gets a clear
// error and exit code 4, and the file stays usable.
func TestWorkspaceLock(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_HOLD_WORKSPACE="+db)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for i := 0; ; i++ {
		if _, err := os.Stat(db + ".held"); err == nil {
			break
		}
		if i > 300 {
			t.Fatal("child never opened the workspace")
		}
		time.Sleep(50 * time.Millisecond)
	}
	var errb strings.Builder
	code := run([]string{"ub", "--db", db, "ingest", "../../ingest/testdata/jsonl/good.jsonl"},
		&streams{in: strings.NewReader(""), out: &strings.Builder{}, err: &errb})
	if code != exitLocked {
		t.Errorf("exit code = %d, want %d; stderr: %s", code, exitLocked, errb.String())
	}
	if !strings.Contains(errb.String(), "in use by another process") {
		t.Errorf("stderr = %q, want a clear lock message", errb.String())
	}
	// Every command that opens the workspace is the second writer (or
	// reader) in turn: each stops with exit 4, one line on stderr.
	good := "../../ingest/testdata/jsonl/good.jsonl"
	for _, args := range [][]string{
		{"labels", "import", good}, {"rubrics", "import", good}, {"verdicts", "import", good},
		{"points", "import", good}, {"points"}, {"split"}, {"judge"}, {"probes"}, {"profile"},
		{"sql", "select 1"}, {"sql", "--write", "select 1"}, {"audit"}, {"report", "--out", t.TempDir()},
		{"export", "--out", filepath.Join(t.TempDir(), "s.jsonl"), "sessions"}, {"review", "stats"},
		{"ingest", "--prices", "testdata/missing-is-checked-first.toml"},
	} {
		var eb strings.Builder
		code := run(append([]string{"ub", "--db", db}, args...), &streams{in: strings.NewReader(""), out: &strings.Builder{}, err: &eb})
		want := exitLocked
		if args[0] == "ingest" {
			want = exitUsage // a missing input is named before the workspace is opened
		}
		if code != want || strings.Count(eb.String(), "\n") != 1 {
			t.Errorf("ub %s on a held workspace: exit %d, stderr %q; want exit %d and one line", strings.Join(args, " "), code, eb.String(), want)
		}
	}
	// ub view, a reader, names the writer that holds the workspace by its
	// pid, as the writers do, and serves nothing.
	var vo, ve strings.Builder
	code = run([]string{"ub", "--db", db, "view"}, &streams{in: strings.NewReader(""), out: &vo, err: &ve})
	if want := fmt.Sprintf("ub: open %s: workspace is in use by another process (pid %d); wait for it to finish or use another --db\n", db, cmd.Process.Pid); code != exitLocked || ve.String() != want || vo.Len() != 0 {
		t.Errorf("ub view on a held workspace: exit %d, stdout %q, stderr %q; want exit %d and %q", code, vo.String(), ve.String(), exitLocked, want)
	}
	cmd.Process.Kill()
	cmd.Wait()
	code = run([]string{"ub", "--db", db, "ingest", "../../ingest/testdata/jsonl/good.jsonl"},
		&streams{in: strings.NewReader(""), out: &strings.Builder{}, err: &errb})
	if code != exitOK {
		t.Errorf("after the holder exits: exit code = %d; stderr: %s", code, errb.String())
	}
}
