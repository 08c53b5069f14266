package lines

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type line struct {
	n   int
	raw string
}

func readAll(t *testing.T, in string) []line {
	t.Helper()
	var got []line
	if err := ReadJSONL(strings.NewReader(in), "in.jsonl", func(n int, raw []byte) error {
		got = append(got, line{n, string(raw)})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestReadJSONL(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // past the 64 KiB buffer
	for _, c := range []struct {
		name, in string
		want     []line
	}{
		{"blank lines skipped, still counted", "{\"a\":1}\n\n  \t\n{\"b\":2}\n", []line{{1, `{"a":1}`}, {4, `{"b":2}`}}},
		{"byte order mark and CRLF removed", "\xef\xbb\xbf{}\r\n{}\r\n", []line{{1, "{}"}, {2, "{}"}}},
		{"unterminated last line kept", "{}\n{\"c\":3}", []line{{1, "{}"}, {2, `{"c":3}`}}},
		{"line longer than the buffer whole", "{}\n" + long + "\n{}\n", []line{{1, "{}"}, {2, long}, {3, "{}"}}},
		{"empty input", "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := readAll(t, c.in)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got %.200v, want %.200v", got, c.want)
			}
		})
	}
}

func TestReadJSONLStopsAtTheCallbacksError(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := ReadJSONL(strings.NewReader("a\nb\nc\n"), "in", func(n int, _ []byte) error {
		calls++
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop || calls != 2 {
		t.Errorf("err %v after %d calls, want the callback's error as is after 2", err, calls)
	}
}

// errReader fails after its text, as a disk or pipe can.
type errReader struct{ s *strings.Reader }

func (r errReader) Read(p []byte) (int, error) {
	if r.s.Len() == 0 {
		return 0, errors.New("device gone")
	}
	return r.s.Read(p)
}

func TestReadJSONLNamesTheLineOfAReadError(t *testing.T) {
	err := ReadJSONL(errReader{strings.NewReader("{}\n{}\n")}, "in.jsonl", func(int, []byte) error { return nil })
	if err == nil || err.Error() != "in.jsonl:3: device gone" {
		t.Errorf("err %v, want in.jsonl:3: device gone", err)
	}
}

func TestReadJSONLFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	if err := os.WriteFile(p, []byte("{}\n\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var ns []int
	if err := ReadJSONLFile(p, func(n int, _ []byte) error { ns = append(ns, n); return nil }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(ns) != "[1 3]" {
		t.Errorf("lines %v, want [1 3]", ns)
	}
	if err := ReadJSONLFile(filepath.Join(t.TempDir(), "none"), func(int, []byte) error { return nil }); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestNextPrefixCutsALongLine(t *testing.T) {
	r := NewReader(strings.NewReader(strings.Repeat("y", 100<<10) + "\nok\n"))
	l, cut, _, ok, err := r.NextPrefix(10)
	if err != nil || !ok || !cut || string(l) != "yyyyyyyyyy" {
		t.Fatalf("first line %q cut %v ok %v err %v, want its first 10 bytes, cut", l, cut, ok, err)
	}
	l, cut, unterminated, ok, err := r.NextPrefix(10)
	if err != nil || !ok || cut || unterminated || string(l) != "ok" || r.Line() != 2 {
		t.Errorf("second line %q cut %v unterminated %v line %d err %v", l, cut, unterminated, r.Line(), err)
	}
}

func TestParseErrorNamesThePlace(t *testing.T) {
	if got := (&ParseError{Path: "a.jsonl", Line: 3, Reason: "bad"}).Error(); got != "a.jsonl:3: bad" {
		t.Errorf("%q", got)
	}
	if got := (&ParseError{Path: "a.jsonl", Reason: "empty"}).Error(); got != "a.jsonl: empty" {
		t.Errorf("%q", got)
	}
}

// TestReadJSONLLongAndInvalidLines: a line longer than MaxJSONLLineBytes
// and one that is not valid UTF-8 stop ReadJSONL with file:line (the limit
// in words) as bad input, not bufio's "token too long".
func TestReadJSONLLongAndInvalidLines(t *testing.T) {
	defer func(n int) { MaxJSONLLineBytes = n }(MaxJSONLLineBytes)
	MaxJSONLLineBytes = 1 << 10
	for _, c := range []struct{ in, want string }{
		{"{}\n{\"a\": \"" + strings.Repeat("x", 2000) + "\"}\n{}\n", "f.jsonl:2: line longer than the limit of 1 KiB"},
		{"{}\n\n{\"a\": \"caf\xe9\"}\n", "f.jsonl:3: not valid UTF-8 (byte 11)"},
	} {
		err := ReadJSONL(strings.NewReader(c.in), "f.jsonl", func(int, []byte) error { return nil })
		var pe *ParseError
		if err == nil || err.Error() != c.want || !errors.Is(err, ErrBadInput) || !errors.As(err, &pe) {
			t.Errorf("err %v, want %q as bad input", err, c.want)
		}
	}
}
