package layout_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ub-bench/ub/reports/layout"
)

// TestFiguresBeforeAndAfter reads figures ub drew from its synthetic
// studies before their layout was fixed (-before) and after (-after): each
// before-figure shows the defect seen in its picture, each after-figure
// none. review-codes: the legend set against the end of the longest bar;
// agent-effort: names printed over the points; ufs-frontier: the frontier
// and the rings of dominated points through the names; probe-rates: y
// labels flush with the left edge.
func TestFiguresBeforeAndAfter(t *testing.T) {
	for _, tc := range []struct {
		file string
		want string // a problem contains it; "" for none
	}{
		{"review-codes-before.svg", "legend at 370,19-418,42 covers a mark"},
		{"agent-effort-before.svg", `text " user_simulator:gemma-4-26b@t1" lies on a mark`},
		{"ufs-frontier-before.svg", `text "gpt-4.1-mini" lies on a mark`},
		{"probe-rates-before.svg", `text "user_simulator:demo-b@t0" runs to the edge`},
		{"review-codes-after.svg", ""},
		{"agent-effort-after.svg", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			pic, err := layout.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.Join(pic.Problems(1), "\n")
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("problems:\n%s\nwant one with %q", got, tc.want)
			}
		})
	}
}
