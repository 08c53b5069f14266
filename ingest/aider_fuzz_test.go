package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"testing/iotest"
)

// FuzzParseAider checks what must hold for any input: no panic, no error
// from an in-memory reader, every emitted session well formed with a
// developer turn and valid UTF-8 text (checkAiderSession), every header
// accounted for, and the same result however the reader splits the bytes.
func FuzzParseAider(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "aider", "*.md"))
	for _, path := range fixtures {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		"",
		"# aider chat started at 2025-01-01 00:00:00\n#### hi  \n",
		"# aider chat started at 2025-01-01 00:00:00\r\n####\r\n\r\n#### /ask x\r\n\r\n#### x\r\n",
		"# aider chat started at 2025-01-01 00:00:00\n#### a\n\n#### /help q\n\n#### # Question: q\n> out\n>\n",
		"# aider chat started at 2025-01-01 00:00:00\n#### \xff  \n# aider chat started at 2025-13-01 00:00:00\n#### \x00\n",
		"# aider chat started at 2025-01-01 00:00:00\n#### Add x? (Y)es/(N)o [Yes]: y  \n#### <blank>  \n####   \n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var whole collect
		if err := ParseAider(Source{Path: "f.md", R: bytes.NewReader(in)}, &whole); err != nil {
			t.Fatalf("ParseAider from memory: %v", err)
		}
		headers := 0
		for _, line := range bytes.Split(in, []byte("\n")) {
			if bytes.HasPrefix(line, []byte(aiderHeader)) {
				headers++
			}
		}
		ids := map[string]bool{}
		for _, s := range whole.sessions {
			checkAiderSession(t, "f.md", s)
			if ids[s.ID] {
				t.Errorf("duplicate session id %s", s.ID)
			}
			ids[s.ID] = true
		}
		for _, e := range whole.errs {
			if e.Path != "f.md" || e.Line < 1 || e.Reason == "" {
				t.Errorf("bad ParseError %+v", e)
			}
		}
		// Every header ends as a session, a skip or (at most) one error.
		if n := len(whole.sessions) + whole.skips["no developer message"]; n > headers || n+len(whole.errs) < headers {
			t.Errorf("%d headers, %d sessions, %v skips, %d errors", headers, len(whole.sessions), whole.skips, len(whole.errs))
		}
		var bytewise collect
		if err := ParseAider(Source{Path: "f.md", R: iotest.OneByteReader(bytes.NewReader(in))}, &bytewise); err != nil {
			t.Fatalf("ParseAider one byte at a time: %v", err)
		}
		if !reflect.DeepEqual(whole, bytewise) {
			t.Errorf("reading one byte at a time gives another result")
		}
	})
}
