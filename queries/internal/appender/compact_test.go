package appender

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// compactCases are JSON texts, valid and not, on which appendCompactJSON
// must agree with json.Marshal of a json.RawMessage.
var compactCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e+10`, `-12.25E-3`, `true`, `false`, `null`,
	" {\n  \"a\" : [ 1 , 2.0 , \"x y\" ] ,\r\n\t\"b\":{ } }\n",
	`{"html":"<b>&amp;</b>","sep":"a` + "\u2028" + `b` + "\u2029" + `c"}`,
	`"escapes \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00"`,
	`"not utf-8: ` + "\xff\xfe" + `"`,
	`"` + "\xe2\x80" + `"`, `"` + "\xe2\x80\xaa" + `"`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	// Not JSON.
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `01`, `1.`, `.5`, `1e`, `1e+`, `-`, `+1`,
	`tru`, `nul`, `truex`, `"a`, `"\x"`, `"\u12"`, `"\u12g4"`, "\"tab\there\"", `1 2`, `[1 2]`, `{"a":1 "b":2}`,
	`<`, `"a"<`, "\u2028", `NaN`, `[-]`, `{"a":}`, `{"a"}`, `[,1]`,
}

func checkCompact(t *testing.T, src []byte) {
	t.Helper()
	want, werr := json.Marshal(json.RawMessage(src))
	prefix := []byte("prefix")
	got, ok := appendCompactJSON(prefix, src)
	switch {
	case ok && werr != nil:
		t.Errorf("%q: compacted to %q; json.Marshal refuses it: %v", src, got, werr)
	case ok && !bytes.Equal(got, append([]byte("prefix"), want...)):
		t.Errorf("%q: compacted to %q, json.Marshal writes %q", src, got[len(prefix):], want)
	case !ok && werr == nil && src != nil:
		// Only nil (which json.Marshal writes as null) may be left to it.
		t.Errorf("%q: not compacted; json.Marshal writes %q", src, want)
	case !ok && string(got) != "prefix":
		t.Errorf("%q: refused, but dst became %q", src, got)
	}
}

func TestAppendCompactJSONMatchesMarshal(t *testing.T) {
	for _, s := range compactCases {
		checkCompact(t, []byte(s))
	}
}

func FuzzAppendCompactJSON(f *testing.F) {
	for _, s := range compactCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkCompact(t, src) })
}
