package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ub-bench/ub/judge/review"
)

// TestReviewsDirSimulationFIFO: a simulation file of a dir-format run that
// is a FIFO is refused by review import, naming it, instead of blocking
// for ever (the run's files are read as ingest reads them).
func TestReviewsDirSimulationFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "simulations"), 0o755); err != nil {
		t.Fatal(err)
	}
	meta := filepath.Join(dir, "results.json")
	if err := os.WriteFile(meta, []byte(`{"info": {}, "tasks": [], "simulation_index": null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "simulations", "f1.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := review.ParseFile(meta, review.FileOptions{Format: "tau2", Reviewer: "llm:x", At: time.Unix(0, 0), Run: tau2DirRun})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("err = %v, want the FIFO %s named", err, fifo)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("review import of a run with a FIFO did not return within 30 s")
	}
}
