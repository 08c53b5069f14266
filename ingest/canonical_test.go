package ingest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// canonicalCases are JSON texts, valid and not, on which canonical must
// give what encoding/json gives (canonicalExact).
var canonicalCases = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+10`, `1E3`, `true`, `false`, `null`, `  {"a" : 1 }  `,
	"{\n  \"b\": [1, 2.50, {\"z\": null, \"a\": \"x\"}],\n  \"a\": {\"é\": 1, \"e\": 2, \"E\": 3, \"\": 4}\n}",
	`{"a": 1, "b": 2, "a": 3}`, `{"a": {"x": 1}, "a": [2]}`,
	`"<b>&amp;</b> \u003c \u2028 ` + "\u2028\u2029" + ` \u00e9 é 日本 \ud83d\ude00 😀"`,
	`"\" \\ \/ \b \f \n \r \t \u0000 \u001f \u007f \u0041"`,
	`{"k\u00e9y": "v", "k\\ey": 1, "kéy": 2}`,
	`"lone \ud800 surrogate"`, `"low \udc00"`, "\"bad \xff utf-8\"", "{\"\xc3\": 1}",
	strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
	strings.Repeat("[", 1001) + strings.Repeat("]", 1001),
	// Not one JSON value.
	``, `{`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `01`, `1.`, `-`, `tru`, `"a`, `"\x"`, `"\u12"`,
	"\"tab\there\"", `1 2`, `{} x`, `[1 2]`, `{"a":}`, `NaN`,
}

func checkCanonical(t *testing.T, raw []byte) {
	t.Helper()
	want := canonicalExact(raw)
	if got := canonical(raw); !bytes.Equal(got, want) {
		t.Errorf("canonical(%q) = %q, encoding/json gives %q", raw, got, want)
	}
}

func TestCanonicalMatchesEncodingJSON(t *testing.T) {
	for _, s := range canonicalCases {
		checkCanonical(t, []byte(s))
	}
	// The fast way reads the common cases itself.
	for _, s := range []string{`{"b": [1, {"z": "é\n<"}], "a": "x", "a": true}`, `"\u00e9"`} {
		if _, ok := canonicalFast([]byte(s)); !ok {
			t.Errorf("canonicalFast(%q) left it to encoding/json", s)
		}
	}
}

func TestCanonicalOnCorpusTasks(t *testing.T) {
	root := corpusDir(t, "tau2")
	var c epCollect
	for _, f := range []struct{ format, path string }{
		{FormatTau2, "results/airline__agent-gpt-4.1__user-gpt-4.1__20tasks.json"},
		{FormatTau1, "tau_trait/telecom__agent-gpt-5__user-trait-none.json"},
	} {
		in, err := os.Open(filepath.Join(root, f.path))
		if err != nil {
			t.Fatal(err)
		}
		err = episodeParsers[f.format](f.path, in, &c)
		in.Close()
		if err != nil || len(c.errs) > 0 {
			t.Fatal(err, c.errs)
		}
	}
	n := 0
	for _, f := range c.files {
		for _, task := range f.Tasks {
			checkCanonical(t, task.Raw)
			n++
		}
	}
	if n < 20 {
		t.Errorf("%d tasks checked", n)
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range canonicalCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) { checkCanonical(t, raw) })
}
