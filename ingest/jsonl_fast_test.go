package ingest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// generalCanonical is the decoding the fast path stands in for:
// encoding/json with unknown fields refused and nothing after the value.
func generalCanonical(line []byte) (canonicalSession, bool) {
	var c canonicalSession
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if dec.Decode(&c) != nil || dec.More() {
		return canonicalSession{}, false
	}
	return c, true
}

var fastCanonicalCases = []struct {
	line string
	fast bool // taken by the fast path
}{
	{`{"id":"s1","developer":"ada","repo":"o/r","started_at":"2025-01-01T00:00:00Z","turns":[{"role":"developer","text":"hi","ts":"2025-01-01T00:00:01Z"},{"role":"agent","text":"ok","is_command":false}]}`, true},
	{` { "turns" : [ { "text" : "a\"b\\c\/d\b\f\n\r\t" , "role" : "developer" , "is_command" : true } ] } `, true},
	{`{"turns":[{"role":"developer","text":"caf\u00e9 \ud83d\ude00 \u0041"}]}`, true},
	{`{"turns":[]}`, true},
	{`{}`, true},
	{`{"turns":[{"role":"developer"}]}`, true}, // no text: nil, as encoding/json leaves it
	{`{"i\u0064":"x","turns":[{"role":"developer","text":"t"}]}`, true},
	// Left to the general decoders:
	{`{"ID":"x","turns":[{"role":"developer","text":"t"}]}`, false},          // case-folded key
	{`{"id":"a","id":"b","turns":[{"role":"developer","text":"t"}]}`, false}, // repeated key
	{`{"id":null,"turns":[{"role":"developer","text":"t"}]}`, false},         // null
	{`{"meta":{"k":1},"turns":[{"role":"developer","text":"t"}]}`, false},    // meta
	{`{"turns":[{"role":"developer","text":"t","meta":{}}]}`, false},         // turn meta
	{`{"turns":[{"role":"developer","text":"\ud83d"}]}`, false},              // lone surrogate
	{`{"turns":[{"role":"developer","text":"\ude00\ud83d"}]}`, false},        // reversed pair
	{`{"turns":[{"role":"developer","text":"t"}]} x`, false},                 // trailing value
	{`{"turns":[{"role":"developer","text":"t"}]}{}`, false},                 // two values
	{`{"turns":[{"role":"developer","text":"t",}]}`, false},                  // trailing comma
	{`{"turns":[{"role":"developer","text":"a` + "\t" + `b"}]}`, false},      // control character
	{`{"turns":[{"role":"developer","text":"\x"}]}`, false},                  // bad escape
	{`{"turns":[{"role":"developer","text":"t","is_command":1}]}`, false},    // number
	{`{"turns":[{"role":"developer","text":"t"}]`, false},                    // truncated
	{`{"turns":[{"role":"developer","text":"\u12"}]}`, false},                // short escape
	{`{"extra":"x","turns":[{"role":"developer","text":"t"}]}`, false},       // unknown key
	{`["turns"]`, false},
	{``, false},
}

// TestFastCanonicalAgrees: on every line the fast path takes, it decodes
// what encoding/json decodes; the lines it leaves are the ones listed.
func TestFastCanonicalAgrees(t *testing.T) {
	for _, tc := range fastCanonicalCases {
		var c canonicalSession
		ok := fastCanonical([]byte(tc.line), &c)
		if ok != tc.fast {
			t.Errorf("%s: fast path took it %v, want %v", tc.line, ok, tc.fast)
		}
		if !ok {
			continue
		}
		want, wok := generalCanonical([]byte(tc.line))
		if !wok {
			t.Errorf("%s: fast path decoded a line encoding/json refuses", tc.line)
			continue
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("%s:\nfast    %#v\ngeneral %#v", tc.line, c, want)
		}
	}
}

// FuzzFastCanonical: whatever the line, the fast path either leaves it or
// decodes exactly what encoding/json does.
func FuzzFastCanonical(f *testing.F) {
	for _, tc := range fastCanonicalCases {
		f.Add([]byte(tc.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !utf8.Valid(line) {
			return // decodeCanonical refuses it before any decoder
		}
		var c canonicalSession
		if !fastCanonical(line, &c) {
			return
		}
		want, ok := generalCanonical(line)
		if !ok {
			t.Fatalf("%q: fast path decoded a line encoding/json refuses", line)
		}
		if !reflect.DeepEqual(c, want) {
			t.Fatalf("%q:\nfast    %#v\ngeneral %#v", line, c, want)
		}
	})
}

// TestPlainRun: plainRun stops at the first quote, backslash or control
// byte wherever it falls in a word of eight (or past the last whole word),
// skips every other byte, multi-byte UTF-8 included, and returns len(b)
// when there is none: checked against a byte-by-byte scan.
func TestPlainRun(t *testing.T) {
	naive := func(b []byte, i int) int {
		for ; i < len(b); i++ {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		return len(b)
	}
	fill := []byte("abcé😀 xyz~\x7f\x80\xff!#[]{}/") // never a stop byte
	for _, stop := range []byte{'"', '\\', 0, '\n', 0x1f} {
		for n := 0; n <= 40; n++ {
			for at := -1; at < n; at++ { // -1: no stop byte
				b := make([]byte, n)
				for k := range b {
					b[k] = fill[k%len(fill)]
				}
				if at >= 0 {
					b[at] = stop
				}
				for from := 0; from <= n; from++ {
					if got, want := plainRun(b, from), naive(b, from); got != want {
						t.Fatalf("stop %q at %d of %d, from %d: %d, want %d", stop, at, n, from, got, want)
					}
				}
			}
		}
	}
	// The bytes just outside the stop set are not stops.
	for _, c := range []byte{' ', '!', '#', '[', ']', 0x7f, 0x80, 0xa2, 0xdc, 0xff} {
		b := bytes.Repeat([]byte{c}, 19)
		if got := plainRun(b, 0); got != len(b) {
			t.Errorf("byte %#x: stopped at %d", c, got)
		}
	}
}
