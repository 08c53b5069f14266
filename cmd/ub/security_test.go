package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/ub-bench/ub/judge/review/reviewtest"
)

// hostileTau2 is a tau2 result file whose simulator name
// (info.user_info.llm), agent, task id, simulation id and message carry
// HTML that would run if shown raw, and right-to-left overrides.
func hostileTau2(t *testing.T, path string) {
	t.Helper()
	doc := map[string]any{
		"timestamp": "2025-01-01T00:00:00",
		"info": map[string]any{"git_commit": "abc",
			"user_info":        map[string]any{"implementation": "user_simulator", "llm": `<script>window.__xss=1;document.title="pwned"</script><img src=x onerror="window.__xss=2">`, "llm_args": map[string]any{"temperature": 0}},
			"agent_info":       map[string]any{"implementation": "llm_agent", "llm": "gpt-4o<svg onload=window.__xss=3>", "llm_args": map[string]any{"temperature": 0}},
			"environment_info": map[string]any{"domain_name": "airline", "policy": "p"}},
		"tasks": []any{map[string]any{"id": "7\u202E", "user_scenario": map[string]any{"instructions": map[string]any{"domain": "airline", "reason_for_call": "r", "known_info": "You are Mia Li.", "task_instructions": "t"}},
			"evaluation_criteria": map[string]any{"actions": []any{}, "reward_basis": []any{"DB"}}}},
		"simulations": []any{map[string]any{"id": "s1\u202E", "task_id": "7\u202E", "reward_info": map[string]any{"reward": 1.0},
			"messages": []any{map[string]any{"role": "assistant", "content": "Hi!", "turn_idx": 0},
				map[string]any{"role": "user", "content": "I am Mia Li. <img src=x onerror=window.__xss=4>", "turn_idx": 1}}}},
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHostileTau2ReportRunsNothing ingests a tau2 file whose names hold
// HTML, writes the report, renders report.md with a Markdown renderer
// that passes raw HTML through and loads it in headless Chromium: no
// script runs, no onerror fires, and the names are shown as text. The
// terminal output shows the task id's U+202E as [U+202E].
func TestHostileTau2ReportRunsNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "ws.duckdb")
	f := filepath.Join(dir, "airline__hostile.json")
	hostileTau2(t, f)
	if code, _, stderr := runUB(t, "--db", db, "ingest", f); code != 0 {
		t.Fatalf("ingest: exit %d: %s", code, stderr)
	}
	out := filepath.Join(dir, "r")
	if code, _, stderr := runUB(t, "--db", db, "report", "--out", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte("window.\\_\\_xss=2")) {
		t.Fatalf("report.md does not name the hostile simulator:\n%s", md)
	}
	var page bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &page); err != nil {
		t.Fatal(err)
	}
	htmlPath := filepath.Join(out, "report.html")
	doc := "<!doctype html><html><head><meta charset=utf-8><title>report</title></head><body>" + page.String() + "</body></html>"
	if err := os.WriteFile(htmlPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := reviewtest.Browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+htmlPath), chromedp.WaitReady(chromedp.CSS("body")),
		chromedp.Sleep(300*time.Millisecond)); err != nil { // time for a broken image's onerror
		t.Fatal(err)
	}
	xss := browserRun(t, ctx, chromedp.Evaluate[string](`String(window.__xss)`))
	title := browserRun(t, ctx, chromedp.Title())
	bad := browserRun(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("script, svg, img[src='x'], [onerror], [onload]").length`))
	text := browserRun(t, ctx, chromedp.Text(chromedp.CSS("body")))
	if xss != "undefined" || title != "report" {
		t.Errorf("a payload ran: window.__xss = %s, title %q", xss, title)
	}
	if bad != 0 {
		t.Errorf("%d elements of the data in the rendered report", bad)
	}
	if !strings.Contains(text, `user_simulator:<script>window.__xss=1;document.title="pwned"</script><img src=x onerror="window.__xss=2">@t0`) {
		t.Error("the rendered report does not show the simulator's name as text")
	}
	// Terminal output: the ids ending in U+202E are shown visibly.
	_, stdout, _ := runUB(t, "--db", db, "sql", "select task_id, simulation_id from episodes")
	_, probes, _ := runUB(t, "--db", db, "probes", "--probe", "P1")
	for name, s := range map[string]string{"sql": stdout, "probes": probes} {
		if !strings.Contains(s, "[U+202E]") || strings.ContainsRune(s, '\u202E') {
			t.Errorf("ub %s prints U+202E raw:\n%s", name, s)
		}
	}
}

func browserRun[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
