package ingest

import (
	"strings"
	"testing"
)

// TestCanonicalErrorsNameNoGoTypes is defect 12 of issue 9: a canonical
// JSONL line of the wrong shape was reported with ub's Go types
// ("canonicalSession.turns of type []ingest.canonicalTurn").
func TestCanonicalErrorsNameNoGoTypes(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"developer":"a","turns":"hello"}`, `"turns": want an array, got string`},
		{`{"developer":"a","turns":[{"role":"developer","text":3}]}`, `"turns.text": want a string, got number`},
		{`{"developer":7,"turns":[]}`, `"developer": want a string, got number`},
		{`{"developer":"a","turns":[],"colour":"red"}`, `unknown field "colour"`},
	} {
		_, got := decodeCanonical([]byte(c.line))
		if got != c.want {
			t.Errorf("%s: reason %q, want %q", c.line, got, c.want)
		}
	}
}

// TestCanonicalYearOneIsRefused is part of defect 10 of issue 9: a year-1
// time (Go's zero time) was stored as NULL, silently losing it.
func TestCanonicalYearOneIsRefused(t *testing.T) {
	for _, line := range []string{
		`{"developer":"a","started_at":"0001-01-01T00:00:00Z","turns":[{"role":"developer","text":"x"}]}`,
		`{"developer":"a","turns":[{"role":"developer","text":"x","ts":"0001-03-01T10:00:00Z"}]}`,
	} {
		s, reason := decodeCanonical([]byte(line))
		if s != nil || !strings.Contains(reason, "year 1 is out of range") {
			t.Errorf("%s: session %v, reason %q; want a refusal naming year 1", line, s != nil, reason)
		}
	}
	s, reason := decodeCanonical([]byte(`{"developer":"a","started_at":"1999-12-31T23:59:59Z","turns":[{"role":"developer","text":"x"}]}`))
	if s == nil || s.StartedAt.Year() != 1999 {
		t.Errorf("1999: session %v, reason %q", s, reason)
	}
}
