package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgeInputNamesEveryBadLine: judge --input names each bad line of a
// file, whatever is wrong with it (invalid JSON, no message, not UTF-8),
// labels the good lines after them, and past a hundred counts the rest.
func TestJudgeInputNamesEveryBadLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	body := "{\"id\":\"a\",\"message\":\"looks good, ship it\"}\n" +
		"{bad\n" +
		"{\"id\":\"b\",\"message\":\"x\xff\"}\n" +
		"{\"id\":\"c\"}\n" +
		"\xfe\n" +
		"{\"id\":\"d\",\"message\":\"fix the failing test\"}\n"
	os.WriteFile(in, []byte(body), 0o644)
	code, out, stderr := runUB(t, "judge", "--input", in)
	if code != exitBadInput {
		t.Errorf("exit %d, want %d", code, exitBadInput)
	}
	for _, want := range []string{"in.jsonl:2: invalid JSON", "in.jsonl:3: not valid UTF-8", "in.jsonl:4: missing \"message\"", "in.jsonl:5: not valid UTF-8", "4 bad line(s) in"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(out, `"id":"a"`) || !strings.Contains(out, `"id":"d"`) {
		t.Errorf("the good lines are not all labelled:\n%s", out)
	}

	var many strings.Builder
	for i := range 150 {
		fmt.Fprintf(&many, "{\"id\":\"x%d\"}\n", i)
	}
	os.WriteFile(in, []byte(many.String()), 0o644)
	code, _, stderr = runUB(t, "judge", "--input", in)
	if code != exitBadInput {
		t.Errorf("150 bad lines: exit %d, want %d", code, exitBadInput)
	}
	if n := strings.Count(stderr, `: missing "message"`); n != maxNamedBadLines {
		t.Errorf("%d bad lines named, want %d", n, maxNamedBadLines)
	}
	for _, want := range []string{"in.jsonl:100: missing", "... and 50 more bad lines\n", "150 bad line(s) in"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
}
