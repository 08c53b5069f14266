package main

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOutThroughSpecialFiles is defect 3 of issue 9: --out onto a symlink
// or a FIFO replaced it with a regular file (temporary + rename), and "-"
// was not stdout. A symlink is followed (the link stays, its file gets the
// output), a FIFO is written through, and "-" writes to stdout.
func TestOutThroughSpecialFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "ub.duckdb")
	if code, _, e := ubRun("--db", db, "ingest", "../../ingest/testdata/jsonl/good.jsonl"); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, e)
	}
	export := func(out string) (int, string, string) {
		return ubRun("--db", db, "export", "--format", "jsonl", "--out", out, "developers")
	}
	code, want, e := export("-")
	if code != 0 || strings.Count(want, "\n") == 0 {
		t.Fatalf("--out -: exit %d, stdout %q, stderr %s", code, want, e)
	}

	t.Run("symlink", func(t *testing.T) {
		real, link := filepath.Join(dir, "real.jsonl"), filepath.Join(dir, "link.jsonl")
		os.WriteFile(real, []byte("old\n"), 0o644)
		if err := os.Symlink("real.jsonl", link); err != nil {
			t.Fatal(err)
		}
		if code, _, e := export(link); code != 0 {
			t.Fatalf("exit %d: %s", code, e)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v)", link, err)
		}
		if got, _ := os.ReadFile(real); string(got) != want {
			t.Errorf("the link's file holds %q, want %q", got, want)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		fifo := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}()
		if code, _, e := export(fifo); code != 0 {
			t.Fatalf("exit %d: %s", code, e)
		}
		if g := <-got; g != want {
			t.Errorf("the FIFO's reader got %q, want %q", g, want)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("%s is no longer a FIFO (%v)", fifo, err)
		}
	})
	t.Run("points export through a symlink", func(t *testing.T) {
		real, link := filepath.Join(dir, "p.jsonl"), filepath.Join(dir, "plink.jsonl")
		os.WriteFile(real, nil, 0o644)
		os.Symlink("p.jsonl", link)
		// No points: exit 6 and the file untouched, the link kept.
		if code, _, _ := ubRun("--db", db, "points", "export", "--out", link); code != exitNoData {
			t.Errorf("exit %d, want %d", code, exitNoData)
		}
		if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v)", link, err)
		}
	})
	t.Run("dangling symlink is refused", func(t *testing.T) {
		link := filepath.Join(dir, "dangling.jsonl")
		os.Symlink("nowhere/x.jsonl", link)
		code, _, e := export(link)
		if code == 0 || !strings.Contains(e, "symlink to a missing file") {
			t.Errorf("exit %d, stderr %q: want a refusal", code, e)
		}
	})
}
