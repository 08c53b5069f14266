package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestDocsLinks checks every relative link of README.md and docs/*.md: the
// file or folder it names exists inside the repository, and an anchor
// (#...) names a heading of the Markdown file it points to, as GitHub
// makes the anchor from the heading.
func TestDocsLinks(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	if len(files) < 2 {
		t.Fatalf("found %v: want README.md and the pages of docs/", files)
	}
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		links += len(mdLink.FindAllString(proseOf(string(b)), -1))
		for _, p := range checkLinks(root, f) {
			t.Error(p)
		}
	}
	if links < len(files) {
		t.Errorf("%d links in %d files: the link pattern finds too few", links, len(files))
	}
	t.Logf("%d links in %d files", links, len(files))
}

// TestDocsSpeakOfTheTool fails when README.md or a page of docs/ speaks of
// how the work on ub was organised instead of what ub does.
func TestDocsSpeakOfTheTool(t *testing.T) {
	root := filepath.Join("..", "..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := workNarrative.FindString(line); m != "" {
				t.Errorf("%s:%d: %q speaks of the work, not of ub", f, i+1, m)
			}
		}
	}
}

var workNarrative = regexp.MustCompile(`(?i)\bissues? #?\d+|\bthis round\b|\bthe round (before|after)\b|\b(before|after) this change\b|\bhelpers?\b|\blead merges\b`)

// TestCheckLinksFindsEachDefect runs the checker on pages written for the
// test: each defect it must report, and the things it must not take for
// links.
func TestCheckLinksFindsEachDefect(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("code/main.go", "package main\n")
	write("docs/page.md", "# The page: `a_b` (c)\n\n## Twice\n\n## Twice\n\n```toml\n# Not a heading\n```\n")
	write("README.md", strings.Join([]string{
		"# Top",
		"[ok](docs/page.md) [ok](docs/page.md#the-page-a_b-c) [ok](docs/page.md#twice-1) [ok](#top)",
		"[ok](code/main.go) [ok](code) [ok](https://example.com/x.md#nowhere) ![ok](docs/page.md \"title\")",
		"`[not a link](nowhere.md)` and ``[nor this](nowhere.md)``",
		"```",
		"[not a link](fenced.md)",
		"```",
		"[bad file](docs/missing.md)",
		"[bad anchor](docs/page.md#not-a-heading)",
		"[bad twice](docs/page.md#twice-2)",
		"[bad self](#nowhere)",
		"[outside](../elsewhere/SPEC.md)",
		"[anchor in code](code/main.go#L1)",
		"",
	}, "\n"))
	got := checkLinks(root, filepath.Join(root, "README.md"))
	want := []string{
		"README.md:8: docs/missing.md: no such file",
		"README.md:9: docs/page.md#not-a-heading: no heading makes anchor #not-a-heading",
		"README.md:10: docs/page.md#twice-2: no heading makes anchor #twice-2",
		"README.md:11: #nowhere: no heading makes anchor #nowhere",
		"README.md:12: ../elsewhere/SPEC.md: outside the repository",
		"README.md:13: code/main.go#L1: an anchor into a file that is not Markdown",
	}
	for i := range got {
		got[i] = strings.TrimPrefix(got[i], root+string(filepath.Separator))
	}
	if !slices.Equal(got, want) {
		t.Errorf("checkLinks reported\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestAnchorOf(t *testing.T) {
	for heading, want := range map[string]string{
		"Splits, eligibility and frozen points":                          "splits-eligibility-and-frozen-points",
		"aider (`.aider.chat.history.md`)":                               "aider-aiderchathistorymd",
		"Review workbench: a simulator's error rate, measured by people": "review-workbench-a-simulators-error-rate-measured-by-people",
		"User fidelity on your own tau2-bench result files":              "user-fidelity-on-your-own-tau2-bench-result-files",
		"**Bold** and `user_only_review`":                                "bold-and-user_only_review",
		"The [linked](x.md) page":                                        "the-linked-page",
	} {
		if got := anchorOf(heading); got != want {
			t.Errorf("anchorOf(%q) = %q, want %q", heading, got, want)
		}
	}
}

// mdLink matches an inline link or image: [text](target) with an optional
// "title". Link texts hold no brackets in these pages.
var mdLink = regexp.MustCompile(`!?\[[^\[\]]*\]\(\s*([^()\s]+)(?:\s+"[^"]*")?\s*\)`)

// checkLinks returns one "file:line: target: reason" per broken relative
// link of the Markdown file path, under the repository root.
func checkLinks(root, path string) []string {
	text, err := os.ReadFile(path)
	if err != nil {
		return []string{err.Error()}
	}
	absRoot, _ := filepath.Abs(root)
	lines := strings.Split(proseOf(string(text)), "\n")
	var problems []string
	for i, line := range lines {
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, frag, _ := strings.Cut(target, "#")
			dest := path
			if file != "" {
				dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
			}
			report := func(reason string) {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", path, i+1, target, reason))
			}
			absDest, _ := filepath.Abs(dest)
			if rel, err := filepath.Rel(absRoot, absDest); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				report("outside the repository")
				continue
			}
			if _, err := os.Stat(dest); err != nil {
				report("no such file")
				continue
			}
			if frag == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				report("an anchor into a file that is not Markdown")
				continue
			}
			b, err := os.ReadFile(dest)
			if err != nil {
				report(err.Error())
				continue
			}
			if !slices.Contains(anchorsOf(string(b)), frag) {
				report("no heading makes anchor #" + frag)
			}
		}
	}
	return problems
}

// proseOf blanks what Markdown does not read as links: fenced code blocks
// and inline code spans. Line breaks stay, so line numbers hold.
func proseOf(text string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			b.WriteString("\n"[:strings.Count(line, "\n")])
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			b.WriteString("\n"[:strings.Count(line, "\n")])
			continue
		}
		b.WriteString(line)
	}
	return blankCodeSpans(b.String())
}

// fenceOf returns the opening fence (``` or ~~~, as long as written) of a
// line, or "".
func fenceOf(line string) string {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// blankCodeSpans replaces every inline code span (a run of n backticks up
// to the next run of exactly n) by spaces, keeping line breaks.
func blankCodeSpans(s string) string {
	out := []byte(s)
	run := func(i int) int {
		j := i
		for j < len(s) && s[j] == '`' {
			j++
		}
		return j - i
	}
	for i := 0; i < len(s); {
		if s[i] != '`' {
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(s); {
			if s[j] == '`' {
				m := run(j)
				if m == n {
					end = j + m
					break
				}
				j += m
				continue
			}
			j++
		}
		if end < 0 {
			i += n
			continue
		}
		for k := i; k < end; k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
		i = end
	}
	return string(out)
}

// anchorsOf lists the anchors of a Markdown text's ATX headings, as GitHub
// makes them: a repeated anchor gets -1, -2, ... in order.
func anchorsOf(text string) []string {
	var out []string
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			continue
		}
		if fence = fenceOf(trimmed); fence != "" {
			continue
		}
		level := len(trimmed) - len(strings.TrimLeft(trimmed, "#"))
		if level < 1 || level > 6 || !strings.HasPrefix(trimmed[level:], " ") {
			continue
		}
		a := anchorOf(strings.TrimRight(strings.TrimSpace(trimmed[level:]), "#"))
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

var headingLink = regexp.MustCompile(`\[([^\[\]]*)\]\([^()]*\)`)

// anchorOf is GitHub's anchor of a heading: the text as rendered (links by
// their text, no code or emphasis marks), lower case, each space a hyphen,
// and every character but letters, digits, marks, '-' and '_' dropped.
func anchorOf(heading string) string {
	text := headingLink.ReplaceAllString(heading, "$1")
	text = strings.NewReplacer("`", "", "*", "").Replace(text)
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
