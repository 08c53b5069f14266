package queries

import (
	"testing"

	"github.com/ub-bench/ub/analysis"
)

// TestWordsMatchesAnalysis: the loaders count words as analysis.Words does.
func TestWordsMatchesAnalysis(t *testing.T) {
	for _, s := range []string{"", " ", "ok", "looks good,  go ahead\n", "\ta\fb\rc d ", "naïve café", "x\u00a0y"} {
		if got, want := words(s), analysis.Words(s); got != want {
			t.Errorf("words(%q) = %d, analysis.Words = %d", s, got, want)
		}
		if got, want := words([]byte(s)), analysis.Words(s); got != want {
			t.Errorf("words([]byte(%q)) = %d, want %d", s, got, want)
		}
	}
}
