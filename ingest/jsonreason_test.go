package ingest

import "testing"

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
