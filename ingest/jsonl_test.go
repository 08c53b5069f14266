package ingest

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSONL(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		sessions int
		errs     []string
	}{
		{"session with zone-less times", `{"developer":"a","repo":"a/b","started_at":"2025-01-02 03:04:05","turns":[{"role":"developer","text":"x","ts":"2025-01-02T03:04:05"}]}`, 1, nil},
		{"blank lines ignored", "\n\n" + `{"turns":[{"role":"developer","text":"x"}]}` + "\n\n", 1, nil},
		{"unknown field refused", `{"turns":[{"role":"developer","text":"x"}],"devloper":"typo"}`, 0, []string{`x.jsonl:1: unknown field "devloper"`}},
		{"missing turns", `{"developer":"a"}`, 0, []string{`x.jsonl:1: missing "turns"`}},
		{"missing text", `{"turns":[{"role":"developer"}]}`, 0, []string{`x.jsonl:1: turn 0: missing "text"`}},
		{"bad time", `{"started_at":"yesterday","turns":[{"role":"developer","text":"x"}]}`, 0, []string{`x.jsonl:1: started_at: "yesterday" is not an RFC 3339 time`}},
		{"two values on a line", `{"turns":[{"role":"developer","text":"x"}]} {}`, 0, []string{"x.jsonl:1: more than one JSON value on the line"}},
		{"not an object", `[1,2]`, 0, []string{"x.jsonl:1: want an object, got array"}},
		{"CRLF line ends", `{"turns":[{"role":"developer","text":"x"}]}` + "\r\n" + `{"turns":[{"role":"developer","text":"y"}]}` + "\r\n", 2, nil},
		{"very long line", `{"turns":[{"role":"developer","text":"` + strings.Repeat("z", 3<<20) + `"}]}`, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c collect
			if err := ParseJSONL(Source{Path: "x.jsonl", R: strings.NewReader(tt.in)}, &c); err != nil {
				t.Fatal(err)
			}
			if len(c.sessions) != tt.sessions {
				t.Errorf("sessions = %d, want %d", len(c.sessions), tt.sessions)
			}
			var got []string
			for _, e := range c.errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.errs, "\n") {
				t.Errorf("errors = %q, want %q", got, tt.errs)
			}
		})
	}
}

func FuzzParseJSONL(f *testing.F) {
	f.Add(`{"id":"s","developer":"a","repo":"a/b","turns":[{"role":"developer","text":"hi","ts":"2025-01-01T00:00:00Z","meta":{"k":1}}]}`)
	f.Add(`{"turns":[{"role":"agent","text":"x"},{"role":"developer","text":"y","is_command":true}]}` + "\n{")
	f.Fuzz(func(t *testing.T, in string) {
		var c collect
		if err := ParseJSONL(Source{Path: "f.jsonl", R: strings.NewReader(in)}, &c); err != nil {
			t.Fatal(err)
		}
		for _, s := range c.sessions {
			if s.DeveloperTurns() == 0 {
				t.Error("session without a developer turn emitted")
			}
			for _, tr := range s.Turns {
				if !tr.Role.Valid() || !utf8.ValidString(tr.Text) {
					t.Errorf("bad turn %+v", tr)
				}
			}
		}
		for _, e := range c.errs {
			if e.Line < 1 {
				t.Errorf("error without a line: %v", e)
			}
		}
	})
}

// TestReadLine: readLine returns the lines of its input, each with its
// '\n' and the last without one, across the end of the reader's buffer and
// of readLine's blocks (lines of up to 3 MiB, longer than a block), and a
// line stays as it was read while the next ones are read.
func TestReadLine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var lines []string
	for i := 0; i < 400; i++ {
		n := r.IntN(2000)
		switch i % 50 {
		case 7:
			n = lineBlock - 1 + r.IntN(3) // about a block
		case 19:
			n = 3<<20 + r.IntN(100) // three blocks
		case 23:
			n = 0
		}
		lines = append(lines, strings.Repeat(string(rune('a'+i%26)), n)+"\n")
	}
	lines[len(lines)-1] = "last, with no newline"
	br := bufio.NewReaderSize(strings.NewReader(strings.Join(lines, "")), 4096)
	var block []byte
	var got [][]byte
	for {
		line, err := readLine(br, &block)
		if len(line) > 0 {
			got = append(got, line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != len(lines) {
		t.Fatalf("%d lines, want %d", len(got), len(lines))
	}
	for i := range lines {
		if string(got[i]) != lines[i] {
			t.Fatalf("line %d: %d bytes %.20q..., want %d bytes %.20q...", i, len(got[i]), got[i], len(lines[i]), lines[i])
		}
		if cap(got[i]) != len(got[i]) {
			t.Errorf("line %d has room past its end (cap %d, len %d): an append to it would write the next line", i, cap(got[i]), len(got[i]))
		}
	}
}
