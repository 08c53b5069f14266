package reports

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/ub-bench/ub/judge/review/reviewtest"
)

// hostile is text from data that, rendered raw, would run script, add
// elements or restructure the Markdown; each script sets window.__xss.
var hostile = []string{
	`<script>window.__xss=1;document.title="pwned"</script><img src=x onerror="window.__xss=2">`,
	"`<img src=x onerror=window.__xss=3>`",
	"x``<svg onload=window.__xss=4>``",
	`[click](javascript:window.__xss=5)`,
	`![x](javascript:window.__xss=6)`,
	`<javascript:window.__xss=7>`,
	"| <b onmouseover=window.__xss=8>cell</b> |",
	"# heading\n<iframe src=javascript:window.__xss=9></iframe>",
	`&lt;script&gt;window.__xss=10&lt;/script&gt;`,
	`*em* _em_ **strong** ~~del~~ \<details open ontoggle=window.__xss=11>`,
	"1. list",
	"- item",
	"task\u202E\u2066\u200B\uFEFF",
}

// unsafeMarkdown renders Markdown as a viewer that passes raw HTML
// through would (GitHub-flavoured tables, raw HTML kept).
func unsafeMarkdown(t *testing.T, md []byte) string {
	t.Helper()
	var out bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	if err := gm.Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

var tagRE = regexp.MustCompile(`<[^>]*>`)

// TestMdTextRendersAsTheText: each hostile string, escaped by mdText (or
// put in a code span by mdCode) and rendered, is one paragraph whose text
// is the string itself (format characters shown as [U+XXXX], line breaks
// as \n), with no element but the paragraph (and the code span).
func TestMdTextRendersAsTheText(t *testing.T) {
	for _, s := range hostile {
		want := strings.NewReplacer("\n", `\n`, "\u202E", "[U+202E]", "\u2066", "[U+2066]", "\u200B", "[U+200B]", "\uFEFF", "[U+FEFF]").Replace(s)
		for _, c := range []struct {
			name, md, open, close string
		}{
			{"mdText", "text " + mdText(s), "<p>text ", "</p>\n"},
			{"mdText at a line's start", mdText(s), "<p>", "</p>\n"},
			{"mdCode", "text " + mdCode(s), "<p>text <code>", "</code></p>\n"},
		} {
			got := unsafeMarkdown(t, []byte(c.md))
			inner, ok := strings.CutPrefix(got, c.open)
			if ok {
				inner, ok = strings.CutSuffix(inner, c.close)
			}
			if !ok || tagRE.MatchString(inner) {
				t.Errorf("%s(%q) renders as %q: markup beyond %s...%s", c.name, s, got, c.open, c.close)
				continue
			}
			if html.UnescapeString(inner) != want && !(c.name == "mdCode" && strings.TrimSpace(html.UnescapeString(inner)) == want) {
				t.Errorf("%s(%q) reads %q once rendered, want %q", c.name, s, html.UnescapeString(inner), want)
			}
		}
	}
	// In a table cell, the | stays in the cell.
	var b strings.Builder
	tw, _ := NewTableWriter(&b, "markdown")
	tw.Header([]string{"name", "n"})
	tw.Row([]any{hostile[6], int64(1)})
	got := unsafeMarkdown(t, []byte(b.String()))
	if strings.Count(got, "<td>") != 2 || strings.Contains(got, "<b") {
		t.Errorf("table renders as %q", got)
	}
}

// hostileReport is a report whose every name, id, grader, reviewer and
// code from the data carries one of the hostile strings.
func hostileReport(t *testing.T) *Report {
	t.Helper()
	in := fidelityInput()
	for i := range in.Episodes.Episodes {
		e := &in.Episodes.Episodes[i]
		h := hostile[i%len(hostile)]
		e.UserSim += h
		e.Agent += hostile[(i+1)%len(hostile)]
		e.Domain += hostile[(i+2)%len(hostile)]
		e.TaskID += hostile[(i+3)%len(hostile)]
		e.SourceFile = hostile[(i+4)%len(hostile)] + ".json"
		e.SimulationID += h
	}
	for i := range in.Episodes.Rates {
		in.Episodes.Rates[i].UserSim += hostile[i%len(hostile)]
	}
	rs := reviewStatsFixture(t)
	rs.Reviewer += hostile[0] + hostile[12]
	rs.Method += hostile[3]
	rs.Pending = append(rs.Pending, hostile[1], hostile[7])
	rs.Rerun = append(rs.Rerun, hostile[2])
	for i := range rs.Domains {
		rs.Domains[i].Domain += hostile[i%len(hostile)]
	}
	for i := range rs.Codes {
		rs.Codes[i].Code += hostile[(i+5)%len(hostile)]
	}
	for i := range rs.Agreement {
		rs.Agreement[i].A += hostile[0]
		rs.Agreement[i].B += hostile[6]
	}
	in.Review = &rs
	r := Prepare(in)
	fi := ufsTestInput()
	for i := range fi.Episodes {
		e := &fi.Episodes[i]
		e.Simulator += hostile[i%3]
		e.Agent += hostile[3]
		e.Domain += hostile[(i/12)%2+4]
		e.Task += hostile[12]
		e.ID += hostile[0]
	}
	for i := range fi.Pairs {
		fi.Pairs[i].SimulationID += hostile[0]
	}
	fi.Grader += hostile[0]
	fi.SecondGrader += hostile[7]
	fi.Prices = hostile[1]
	r.SetFidelity(fi)
	return r
}

// TestReportRunsNoHTMLFromData writes report.md from hostile data,
// renders it with a Markdown renderer that passes raw HTML through, and
// loads the page in headless Chromium: no script of the data runs, no
// element of the data is in the page, and its text shows the data.
func TestReportRunsNoHTMLFromData(t *testing.T) {
	dir := t.TempDir()
	if _, err := hostileReport(t).WriteAll(dir); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(md, []byte(`\[U+202E\]`)) || bytes.ContainsRune(md, '\u202E') {
		t.Error("report.md does not show U+202E as [U+202E]")
	}
	page := unsafeMarkdown(t, md)
	tags := strings.ToLower(strings.Join(tagRE.FindAllString(page, -1), ""))
	for _, bad := range []string{"<script", "<svg", "<iframe", "<b ", "<details", "onerror", "javascript:"} {
		if strings.Contains(tags, bad) {
			t.Errorf("the rendered report has a tag with %q", bad)
		}
	}
	for _, tag := range tagRE.FindAllString(page, -1) {
		if strings.HasPrefix(tag, "<img") && !regexp.MustCompile(`^<img src="[a-z-]+\.png" alt="[a-z-]+">$`).MatchString(tag) {
			t.Errorf("an image not of ub's figures: %s", tag)
		}
	}
	htmlPath := filepath.Join(dir, "report.html")
	doc := "<!doctype html><html><head><meta charset=utf-8><title>report</title></head><body>" + page + "</body></html>"
	if err := os.WriteFile(htmlPath, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := reviewtest.Browser(t)
	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+htmlPath),
		chromedp.WaitReady(chromedp.CSS("body")),
		chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("details").forEach(d => d.open = true)`),
		chromedp.Sleep(300*time.Millisecond), // let the onerror of a broken image fire
	); err != nil {
		t.Fatal(err)
	}
	xss := run(t, ctx, chromedp.Evaluate[string](`String(window.__xss)`))
	title := run(t, ctx, chromedp.Title())
	bad := run(t, ctx, chromedp.Evaluate[int](`document.querySelectorAll("script, svg, iframe, b, details, [onerror], [onload], [onmouseover], [ontoggle], a[href^='javascript:'], img[src^='javascript:'], img[src='x']").length`))
	text := run(t, ctx, chromedp.Text(chromedp.CSS("body")))
	if xss != "undefined" || title != "report" {
		t.Errorf("a payload ran: window.__xss = %s, title %q", xss, title)
	}
	if bad != 0 {
		t.Errorf("%d elements of the data in the page", bad)
	}
	for _, want := range []string{`<script>window.__xss=1;document.title="pwned"</script>`, "[click](javascript:window.__xss=5)", "[U+202E][U+2066][U+200B][U+FEFF]"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page does not show %q as text", want)
		}
	}
}

func run[T any](t *testing.T, ctx context.Context, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTerminalTableShowsFormatCharacters: the terminal table (ub sql, the
// default format) shows a task id ending in U+202E as [U+202E], and an
// escape sequence as [U+001B]; csv and json keep the data exact.
func TestTerminalTableShowsFormatCharacters(t *testing.T) {
	var b strings.Builder
	tw, _ := NewTableWriter(&b, "table")
	tw.Header([]string{"task_id"})
	tw.Row([]any{"task-7\u202E"})
	tw.Row([]any{"\x1b[2Jclear"})
	tw.Close()
	if got := b.String(); !strings.Contains(got, "task-7[U+202E]") || !strings.Contains(got, "[U+001B][2Jclear") || strings.ContainsAny(got, "\u202E\x1b") {
		t.Errorf("table:\n%s", got)
	}
	b.Reset()
	tw, _ = NewTableWriter(&b, "csv")
	tw.Header([]string{"task_id"})
	tw.Row([]any{"task-7\u202E"})
	tw.Close()
	if got := b.String(); got != "task_id\ntask-7\u202E\n" {
		t.Errorf("csv %q", got)
	}
}
