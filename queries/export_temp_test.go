package queries

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestExportRemovesOnlyTheDeadsTemporaries: an export removes, beside its
// output, the temporaries of exports to the same output whose lock no
// process holds (a file, and a partitioned export's directory), each with
// its lock; it leaves a temporary whose export still runs (its lock held),
// one without a lock, the user's files, and the temporaries of another
// output.
func TestExportRemovesOnlyTheDeadsTemporaries(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	dir := t.TempDir()
	put := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	put(".out.jsonl.111.tmp", "a killed export's rows")
	put(".out.jsonl.111.tmp.lock", "")
	put(".out.jsonl.555.tmp/part=1/data_0.parquet", "a killed partitioned export's file")
	put(".out.jsonl.555.tmp.lock", "")
	put(".out.jsonl.222.tmp", "a running export's rows")
	put(".out.jsonl.222.tmp.lock", "")
	put(".out.jsonl.333.tmp", "no lock: not known to be ub's")
	put(".out.jsonl.abc.tmp.lock", "not a name ub makes")
	put(".other.jsonl.444.tmp", "another output's")
	put(".other.jsonl.444.tmp.lock", "")
	put("notes.txt", "the user's")
	running, err := os.Open(filepath.Join(dir, ".out.jsonl.222.tmp.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer running.Close()
	if err := syscall.Flock(int(running.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}

	n, err := Export(ctx, ws.Conn(), "SELECT 1 AS a", filepath.Join(dir, "out.jsonl"), "jsonl")
	if err != nil || n != 1 {
		t.Fatalf("export: %d rows, %v", n, err)
	}
	var got []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			got = append(got, rel)
		}
		return err
	})
	want := []string{".other.jsonl.444.tmp", ".other.jsonl.444.tmp.lock", ".out.jsonl.222.tmp", ".out.jsonl.222.tmp.lock",
		".out.jsonl.333.tmp", ".out.jsonl.abc.tmp.lock", "notes.txt", "out.jsonl"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("beside the output after the export:\n%v\nwant\n%v", got, want)
	}
	// A partitioned export cleans up the same way, beside its directory.
	put(".parts.666.tmp/x=1/data_0.parquet", "killed")
	put(".parts.666.tmp.lock", "")
	if _, err := ExportPartitioned(ctx, ws.Conn(), "SELECT 1 AS x, 2 AS y", filepath.Join(dir, "parts"), "x"); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".parts.*")); len(m) != 0 {
		t.Errorf("after a partitioned export, %v still beside it", m)
	}
}
