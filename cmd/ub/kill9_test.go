package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKill9ThenAgain: ub ingest, killed with SIGKILL while it writes the
// workspace, then run again, completes, and the workspace then holds the
// same sessions and turns as one ingested without a kill; ub export,
// killed while it writes, leaves the output it replaces whole, and run
// again writes the rows of an uninterrupted export and removes what the
// killed one left.
func TestKill9ThenAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "big.jsonl")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range 150000 {
		fmt.Fprintf(w, `{"id":"s%d","developer":"dev%d","repo":"r/%d","started_at":"2025-03-01T10:00:00Z","turns":[`+
			`{"role":"developer","text":"fix the upload loop number %d"},{"role":"agent","text":"Added a retry with backoff, attempt %d."},`+
			`{"role":"developer","text":"thanks, but it still times out on file %d"}]}`+"\n", i, i%40, i%25, i, i, i)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	clean, killed := filepath.Join(dir, "clean.duckdb"), filepath.Join(dir, "killed.duckdb")
	if code, _, errs := ubRun("--db", clean, "ingest", in); code != 0 {
		t.Fatalf("clean ingest: exit %d: %s", code, errs)
	}
	// The killed ingest: SIGKILL half a second after it made the workspace
	// (ingest stores the whole input in one transaction; the clean one
	// above takes seconds).
	var opened time.Time
	kill9(t, []string{"--db", killed, "ingest", in}, func() bool {
		if opened.IsZero() {
			if _, err := os.Stat(killed); err == nil {
				opened = time.Now()
			}
			return false
		}
		return time.Since(opened) > 500*time.Millisecond
	})
	if code, _, errs := ubRun("--db", killed, "ingest", in); code != 0 {
		t.Fatalf("ingest after the kill: exit %d: %s", code, errs)
	}
	const digest = `select count(*) || ' ' || md5(string_agg(session_id || ':' || idx || ':' || role || ':' || text, '|' order by session_id, idx)) from turns`
	_, want, _ := ubRun("--db", clean, "sql", "--format", "csv", digest)
	_, got, errs := ubRun("--db", killed, "sql", "--format", "csv", digest)
	if got != want || !strings.Contains(want, "450000 ") {
		t.Errorf("turns after kill -9 and a second ingest: %q (%s), want %q as without the kill", got, errs, want)
	}

	// The killed export: the output it replaces stays whole.
	out := filepath.Join(dir, "turns.jsonl")
	if code, _, errs := ubRun("--db", clean, "export", "--out", out, "turns"); code != 0 {
		t.Fatalf("export: exit %d: %s", code, errs)
	}
	before, _ := os.ReadFile(out)
	if err := os.WriteFile(out, []byte("the user's own file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	kill9(t, []string{"--db", clean, "export", "--out", out, "turns"}, func() bool {
		tmps, _ := filepath.Glob(filepath.Join(dir, ".turns.jsonl.*.tmp"))
		return len(tmps) > 0
	})
	if b, _ := os.ReadFile(out); string(b) != "the user's own file\n" && string(b) != string(before) {
		t.Errorf("the output after a killed export is neither the old file nor the new one: %d bytes", len(b))
	}
	// The killed export left its temporary and the lock it held; the next
	// export removes both.
	// (Every file of the folder is looked at: what DuckDB might write
	// beside the temporary too.)
	left := func() []string {
		var m []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if n := e.Name(); !slices.Contains([]string{"big.jsonl", "clean.duckdb", "killed.duckdb", "turns.jsonl"}, n) {
				m = append(m, n)
			}
		}
		return m
	}
	if m := left(); len(m) != 2 || !strings.HasPrefix(m[0], ".turns.jsonl.") || !strings.HasSuffix(m[0], ".tmp") || m[1] != m[0]+".lock" {
		t.Errorf("the killed export left %v, want its temporary and its lock", m)
	}
	if code, _, errs := ubRun("--db", clean, "export", "--out", out, "turns"); code != 0 {
		t.Fatalf("export after the kill: exit %d: %s", code, errs)
	}
	if m := left(); len(m) != 0 {
		t.Errorf("after the next export, %v still beside the output", m)
	}
	// The same rows (a large table's export keeps no row order: DuckDB
	// runs it without preserve_insertion_order).
	if b, _ := os.ReadFile(out); !sameLines(b, before) {
		t.Errorf("export after the kill wrote %d bytes, want the rows of an uninterrupted export (%d bytes)", len(b), len(before))
	}
}

// sameLines says whether a and b hold the same lines, in any order.
func sameLines(a, b []byte) bool {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	slices.Sort(la)
	slices.Sort(lb)
	return slices.Equal(la, lb)
}

// kill9 runs ub with args as a child process and kills it with SIGKILL as
// soon as ready says it is writing; the test fails if the child ended
// before the kill (the kill would prove nothing).
func kill9(t *testing.T, args []string, ready func() bool) {
	t.Helper()
	a, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "UB_TEST_MAIN_ARGS="+string(a))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for !ready() {
		select {
		case err := <-done:
			t.Fatalf("ub %s ended (%v) before it could be killed mid-write", strings.Join(args, " "), err)
		default:
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("ub %s: never started writing", strings.Join(args, " "))
		}
		time.Sleep(time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill: %v", err)
	}
	err := <-done
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("ub %s: %v, want killed by SIGKILL mid-write", strings.Join(args, " "), err)
	}
}
