package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ub-bench/ub/sim/simtest"
)

// ubRun runs ub in-process and returns the exit code, stdout and stderr.
func ubRun(args ...string) (int, string, string) {
	var out, errb strings.Builder
	code := run(append([]string{"ub"}, args...), testStreams(&out, &errb))
	return code, out.String(), errb.String()
}

// readmeExitCodes parses the exit-code table of the README.
func readmeExitCodes(t *testing.T) map[int]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "### Exit codes")
	if !ok {
		t.Fatal("README has no ### Exit codes section")
	}
	sec, _, _ = strings.Cut(sec, "\n#")
	codes := map[int]string{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \| (.+) \|$`).FindAllStringSubmatch(sec, -1) {
		n, _ := strconv.Atoi(m[1])
		codes[n] = m[2]
	}
	if len(codes) < 8 {
		t.Fatalf("README exit-code table has %d rows: %v", len(codes), codes)
	}
	return codes
}

// TestExitCodesOfREADME walks the README's exit-code table: every code it
// lists is produced by a case here (with a one-line message on stderr for
// every failure), and every case's code is in the table (issue 9, defect 8).
func TestExitCodesOfREADME(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good, bad := "../../ingest/testdata/jsonl/good.jsonl", "../../ingest/testdata/jsonl/bad.jsonl"
	study := filepath.Join(dir, "study.duckdb")
	if code, _, e := ubRun("synth", "--db", study); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, e)
	}
	ws := filepath.Join(dir, "ws.duckdb")
	if code, _, e := ubRun("--db", ws, "ingest", good); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, e)
	}
	leaky := filepath.Join(dir, "leaky.duckdb")
	ubRun("synth", "--db", leaky)
	if code, _, e := ubRun("--db", leaky, "sql", "--write", "update repo_splits set split = 'test' where repo = (select min(repo) from repo_splits where split = 'train')"); code != 0 {
		t.Fatalf("sql --write: exit %d: %s", code, e)
	}
	unauthorized := simtest.New(simtest.Options{Plan: func(string, int) simtest.Fault { return simtest.Fault{Kind: simtest.Unauthorized} }})
	defer unauthorized.Close()
	badRequest := simtest.New(simtest.Options{Plan: func(string, int) simtest.Fault { return simtest.Fault{Kind: simtest.BadRequest} }})
	defer badRequest.Close()

	sqlite := filepath.Join(dir, "notes.sqlite")
	if err := os.WriteFile(sqlite, append([]byte("SQLite format 3\x00"), make([]byte, 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	type tcase struct {
		name string
		args []string
		env  map[string]string
	}
	cases := map[int][]tcase{
		0: {{name: "a query", args: []string{"--db", ws, "sql", "select 1"}}},
		// A fault of the machine: a folder that takes no new file (/proc).
		// A --db in a folder that does not exist is the flag's fault (2).
		1: {{name: "export into a folder that takes no file", args: []string{"--db", ws, "export", "--out", "/proc/ub-export-test.parquet", "sessions"}}},
		2: {
			{name: "workspace in a missing directory", args: []string{"--db", filepath.Join(dir, "no", "such", "dir", "ub.duckdb"), "ingest", good}},
			{name: "unknown command", args: []string{"bogus"}},
			{name: "unknown subcommand", args: []string{"points", "bogus"}},
			{name: "unknown flag of a subcommand", args: []string{"--db", ws, "ingest", "--bogus", good}},
			{name: "unknown flag of a nested subcommand", args: []string{"--db", ws, "points", "export", "--bogus"}},
			{name: "unknown format", args: []string{"--db", ws, "ingest", "--format", "bogus", good}},
			{name: "unknown output format", args: []string{"--db", ws, "sql", "--format", "bogus", "select 1"}},
			{name: "--db names an SQLite file", args: []string{"--db", sqlite, "sql", "select 1"}},
			{name: "missing path", args: []string{"--db", ws, "ingest", filepath.Join(dir, "missing.jsonl")}},
		},
		3: {{name: "bad lines", args: []string{"--db", ws, "ingest", bad}}},
		5: {{name: "a leak", args: []string{"--db", leaky, "audit"}}},
		6: {
			{name: "no workspace", args: []string{"--db", filepath.Join(dir, "none.duckdb"), "report"}},
			{name: "points export before points", args: []string{"--db", ws, "points", "export"}},
			{name: "generate before split", args: []string{"--db", ws, "generate", "--sim", "mix"}},
			{name: "unset API-key variable", args: []string{"--db", study, "judge", "--judge", "m", "--model", "m",
				"--base-url", unauthorized.BaseURL(), "--api-key-env", "UB_TEST_UNSET_KEY", "--target", "points"}},
		},
		7: {
			{name: "endpoint refuses every call", args: []string{"--db", study, "judge", "--judge", "m", "--model", "m",
				"--base-url", unauthorized.BaseURL(), "--target", "points"}},
			{name: "failed model calls recorded", args: []string{"--db", study, "judge", "--judge", "m2", "--model", "m",
				"--base-url", badRequest.BaseURL(), "--target", "points"}},
		},
		8: {{name: "compare finds a regression", args: []string{"--db", study, "compare", "--fail-on-regression", "0.02", "gpt-5.5", "osim-4b"}}},
	}
	readme := readmeExitCodes(t)
	for code := range cases {
		if _, ok := readme[code]; !ok {
			t.Errorf("exit code %d is not in the README table", code)
		}
	}
	for code, meaning := range readme {
		cs, ok := cases[code]
		switch code {
		case exitLocked, exitInterrupt:
			ok = true // TestWorkspaceLock and TestInterruptExits130 below
		}
		if !ok {
			t.Errorf("README exit code %d (%s) has no case here", code, meaning)
		}
		for _, c := range cs {
			t.Run(strconv.Itoa(code)+"/"+c.name, func(t *testing.T) {
				got, _, stderr := ubRun(c.args...)
				if got != code {
					t.Errorf("ub %s: exit %d, want %d (%s); stderr: %s", strings.Join(c.args, " "), got, code, meaning, stderr)
				}
				if code == exitUsage && strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
					t.Errorf("usage error: stderr has more than one line: %q", stderr)
				}
				if code != exitOK && !strings.HasPrefix(stderr, "ub: ") && !strings.Contains(stderr, "\nub: ") {
					t.Errorf("stderr %q has no ub: message", stderr)
				}
			})
		}
	}
}

// TestInterruptExits130: SIGINT stops a running command with exit code 130
// (issue 9, defect 8: it exited 1).
func TestInterruptExits130(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	if code, _, e := ubRun("--db", db, "ingest", "../../ingest/testdata/jsonl/good.jsonl"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, e)
	}
	a, _ := json.Marshal([]string{"--db", db, "sql", "select count(*) from range(1000000000000) t(i) where i % 7 = 3"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a))
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second) // the query runs
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("ub did not stop within 30 s of SIGINT")
	}
	if got := cmd.ProcessState.ExitCode(); got != exitInterrupt {
		t.Errorf("exit code %d after SIGINT, want %d; stderr: %s", got, exitInterrupt, errb.String())
	}
}
