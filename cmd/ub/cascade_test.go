package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/simtest"
)

// TestJudgeCascade: ub judge --cascade builtin,NAME --coverage 0.7 labels
// every point, sends the least confident 30% to the model judge through the
// runner (the fake server rate-limits some first attempts), stores which
// judge decided each label, and a second run sends nothing.
func TestJudgeCascade(t *testing.T) {
	t.Parallel()
	srv := simtest.New(simtest.Options{
		Plan: func(key string, attempt int) simtest.Fault {
			if attempt == 1 && key[0]%4 == 0 {
				return simtest.Fault{Kind: simtest.RateLimit, RetryAfter: "0"}
			}
			return simtest.Fault{}
		},
		Answer: func([]simtest.Message) string { return `{"fine": "question", "move": "inquiry"}` },
	})
	defer srv.Close()
	dir := t.TempDir()
	db := filepath.Join(dir, "d", "ub.duckdb")
	demoDir(t, filepath.Join(dir, "d"))
	judgeArgs := []string{"--db", db, "judge", "--cascade", "builtin,fake", "--coverage", "0.7", "--model", "m", "--base-url", srv.BaseURL(), "--target", "points", "--price-in", "1", "--price-out", "2"}
	code, out, errs := runUB(t, judgeArgs...)
	if code != 0 {
		t.Fatalf("judge: %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "expected: the built-in judge's kept labels agree") {
		t.Errorf("no expected agreement in\n%s", out)
	}
	sent := len(srv.Log())
	ctx := context.Background()
	ws, err := queries.Open(ctx, db, queries.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var points, byBuiltin, byFake, fakeInquiry, withConf, keys int
	ws.Conn().QueryRowContext(ctx, `SELECT count(*) FROM points`).Scan(&points)
	ws.Conn().QueryRowContext(ctx, `SELECT count(*) FILTER (WHERE decided_by = 'builtin'), count(*) FILTER (WHERE decided_by = 'fake'),
		count(*) FILTER (WHERE decided_by = 'fake' AND move = 'inquiry'), count(confidence), count(DISTINCT request_key)
		FROM labels WHERE judge = 'builtin+fake'`).Scan(&byBuiltin, &byFake, &fakeInquiry, &withConf, &keys)
	ws.Close()
	// round(0.7 n) kept by the built-in judge, the rest decided by fake.
	keep := int(math.Round(0.7 * float64(points)))
	if points == 0 || byBuiltin != keep || byFake != points-keep || fakeInquiry != byFake || withConf != points {
		t.Errorf("%d points: %d by builtin (want %d), %d by fake (%d inquiry), %d with confidence", points, byBuiltin, keep, byFake, fakeInquiry, withConf)
	}
	// Points with the same message after the same agent turn share one
	// request; retried calls are logged too.
	if completed := len(srv.Completed()); completed != keys || sent <= keys {
		t.Errorf("%d keys completed for %d distinct requests; %d calls (some first attempts are rate-limited)", completed, keys, sent)
	}
	code, out, errs = runUB(t, judgeArgs...)
	if code != 0 || len(srv.Log()) != sent || !strings.Contains(out, "0 sent") {
		t.Errorf("second run: exit %d, %d more requests\n%s\n%s", code, len(srv.Log())-sent, out, errs)
	}
	// The report's methods say who labelled how much and what the built-in
	// share is expected to agree at.
	rdir := filepath.Join(dir, "r")
	if code, out, errs := runUB(t, "--db", db, "report", "--judge", "builtin+fake", "--out", rdir); code != 0 {
		t.Fatalf("report: %d\n%s\n%s", code, out, errs)
	}
	md, err := os.ReadFile(filepath.Join(rdir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("real messages labelled by `builtin` %d (", keep)
	if !strings.Contains(string(md), want) || !strings.Contains(string(md), "most confident 70% agree with careful labels at kappa") {
		t.Errorf("report methods lack the cascade's shares (%q) or expected agreement", want)
	}
}

func TestJudgeCascadeFlags(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"judge", "--cascade", "fake", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"},
		{"judge", "--cascade", "builtin,fake"},
		{"judge", "--cascade", "builtin,fake", "--model", "m", "--base-url", "http://127.0.0.1:9/v1", "--coverage", "1.2"},
	} {
		if code, _, _ := runUB(t, append([]string{"--db", filepath.Join(t.TempDir(), "x.duckdb")}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
}
