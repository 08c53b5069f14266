package visible

import (
	"strconv"
	"testing"
)

func TestText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain text, tabs\tand\nnewlines\r\n", "plain text, tabs\tand\nnewlines\r\n"},
		{"task-1\u202E", "task-1[U+202E]"},
		{"\u202Aa\u202Bb\u202Cc\u202Dd\u202Ee", "[U+202A]a[U+202B]b[U+202C]c[U+202D]d[U+202E]e"},
		{"\u2066\u2067\u2068\u2069", "[U+2066][U+2067][U+2068][U+2069]"},
		{"zero\u200Bwidth\u200C\u200D\u200E\u200F", "zero[U+200B]width[U+200C][U+200D][U+200E][U+200F]"},
		{"\uFEFFbom", "[U+FEFF]bom"},
		{"arabic\u061Cmark", "arabic[U+061C]mark"},
		{"soft\u00ADhyphen", "soft[U+00AD]hyphen"},
		{"line\u2028para\u2029", "line[U+2028]para[U+2029]"},
		{"esc\x1b[31mred", "esc[U+001B][31mred"},
		{"del\x7fc1\u0085", "del[U+007F]c1[U+0085]"},
		{"tag\U000E0041", "tag[U+E0041]"},
		{"éü 日本 😀", "éü 日本 😀"},
	}
	for _, c := range cases {
		if got := Text(c.in); got != c.want {
			t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQuoteAndList(t *testing.T) {
	if got, want := Quote("a\nub: forged\x00\x1b[31m\u202e"), `"a\nub: forged\x00\x1b[31m\u202e"`; got != want {
		t.Errorf("Quote = %s, want %s", got, want)
	}
	ids := make([]string, 100000)
	for i := range ids {
		ids[i] = "sim-" + strconv.Itoa(i)
	}
	for _, c := range []struct {
		items []string
		n     int
		want  string
	}{
		{nil, 5, ""},
		{[]string{"a"}, 5, `"a"`},
		{[]string{"a", "b\nc"}, 5, `"a", "b\nc"`},
		{ids[:6], 5, `"sim-0", "sim-1", "sim-2", "sim-3", "sim-4" and 1 more`},
		{ids, 5, `"sim-0", "sim-1", "sim-2", "sim-3", "sim-4" and 99,995 more`},
		{ids, 0, `100,000 more`},
	} {
		if got := List(c.items, c.n); got != c.want {
			t.Errorf("List(%d items, %d) = %s, want %s", len(c.items), c.n, got, c.want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 99995: "99,995", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestLine(t *testing.T) {
	if got, want := Line("id a\nub: forged\r\x00\tend"), `id a\nub: forged\r[U+0000]`+"\tend"; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if got := Line("plain"); got != "plain" {
		t.Errorf("Line(plain) = %q", got)
	}
}
