package ingest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ub-bench/ub"
)

// corpusDir returns ../shared/corpus/<sub> beside the repository (where CI
// puts it), or $UB_CORPUS/<sub>. The corpus is part of the test contract, so
// a missing corpus fails the test rather than skipping it.
func corpusDir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv("UB_CORPUS")
	if root == "" {
		root = filepath.Join("..", "..", "shared", "corpus")
	}
	dir := filepath.Join(root, sub)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("corpus not found at %s (set UB_CORPUS): %v", dir, err)
	}
	return dir
}

// collect is a Sink that keeps everything, for tests.
type collect struct {
	sessions []*ub.Session
	errs     []*ParseError
	skips    map[string]int
}

func (c *collect) Session(s *ub.Session) error { c.sessions = append(c.sessions, s); return nil }
func (c *collect) Error(e *ParseError)         { c.errs = append(c.errs, e) }
func (c *collect) Skip(reason string) {
	if c.skips == nil {
		c.skips = map[string]int{}
	}
	c.skips[reason]++
}
