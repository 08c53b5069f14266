package main

import (
	"path/filepath"
	"testing"

	"github.com/ub-bench/ub/reports/layout"
)

// TestDemoFiguresRead: every figure ub demo draws passes the layout check
// of reports/layout (no text overprinting another or leaving the canvas,
// no legend over a data mark), as reports' TestFiguresRead checks both
// synthetic studies.
func TestDemoFiguresRead(t *testing.T) {
	dir := demoFixtureDir(t) // what ub demo left, read only
	svgs, _ := filepath.Glob(filepath.Join(dir, "report", "*.svg"))
	if len(svgs) < 10 {
		t.Fatalf("ub demo drew %d figures", len(svgs))
	}
	for _, path := range svgs {
		pic, err := layout.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pic.Problems(1) {
			t.Errorf("%s: %s", filepath.Base(path), p)
		}
	}
}
