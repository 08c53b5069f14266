package queries

import (
	"testing"
)

// TestWords: words are runs of characters that are not Unicode white
// space; the counts are written by hand.
func TestWords(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"   ", 0},
		{"ok", 1},
		{"looks good,  go ahead\n", 4},
		{"\ta\fb\rc d\v", 4},
		{"naïve café", 2},
		{"x\u00a0y", 2},                // no-break space, as in the real corpus
		{"1\u202f000 files", 3},        // narrow no-break space
		{"全角\u3000スペース", 2},            // ideographic space
		{"line\u2028next\u0085end", 3}, // line separator, next line
		{"zero\u200bwidth", 1},         // U+200B is not white space
		{"bad \xff\xfe utf8", 3},       // invalid bytes are not space
	} {
		if got := Words(tt.in); got != tt.want {
			t.Errorf("Words(%q) = %d, want %d", tt.in, got, tt.want)
		}
		if got := Words([]byte(tt.in)); got != tt.want {
			t.Errorf("Words([]byte(%q)) = %d, want %d", tt.in, got, tt.want)
		}
	}
}
