package main

import (
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ep_verdicts has no primary key (schema 0019: DuckDB held its index whole
// in memory); every writer of it deletes the keys it writes before it
// inserts. These checks run after every ub of the package's tests (runUB)
// and of its scripts (the "ub" of TestScripts), so that a write path that
// adds a second verdict for a key fails the suite that exercises it.

// repeatedVerdictKeys is the number of (simulation, criterion, grader)
// keys that ep_verdicts of the workspace at path stores more than once.
// ok is false when path cannot be opened read-only (not a DuckDB file, or
// held by a process still writing it, whose own end is checked) or holds
// no ep_verdicts.
func repeatedVerdictKeys(path string) (n int, ok bool) {
	db, err := sql.Open("duckdb", path+"?access_mode=read_only")
	if err != nil {
		return 0, false
	}
	defer db.Close()
	err = db.QueryRow(`SELECT count(*) FROM (SELECT 1 FROM ep_verdicts GROUP BY simulation_id, criterion_id, grader HAVING count(*) > 1)`).Scan(&n)
	return n, err == nil
}

// dbArg is the workspace a ub command line names (--db or -db, with its
// value next or after "="), or "".
func dbArg(args []string) string {
	for i, a := range args {
		for _, f := range []string{"--db", "-db"} {
			if a == f && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				return v
			}
		}
	}
	return ""
}

// checkVerdictKeys fails t if the workspace args name (if any) stores a
// verdict key twice after ub args ran.
func checkVerdictKeys(t *testing.T, args []string) {
	t.Helper()
	db := dbArg(args)
	if db == "" {
		return
	}
	if n, ok := repeatedVerdictKeys(db); ok && n > 0 {
		t.Errorf("after ub %s, %s stores %d (simulation, criterion, grader) keys more than once in ep_verdicts", strings.Join(args, " "), db, n)
	}
}

// scriptVerdictKeys is the check after a script's ub: every workspace
// under the script's directory (the working directory, $WORK) that ub
// can open. It returns the message naming those storing a key twice, or
// "".
func scriptVerdictKeys() string {
	var bad []string
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".duckdb") {
			return nil
		}
		if n, ok := repeatedVerdictKeys(p); ok && n > 0 {
			bad = append(bad, fmt.Sprintf("%s stores %d (simulation, criterion, grader) keys more than once in ep_verdicts", p, n))
		}
		return nil
	})
	if len(bad) == 0 {
		return ""
	}
	return fmt.Sprintf("after ub %s: %s", strings.Join(os.Args[1:], " "), strings.Join(bad, "; "))
}
