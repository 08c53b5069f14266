package judge

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestFleissJudges: three judges on four messages all of them labelled,
// by hand (Fleiss 1971): per-message agreeing pairs over m(m-1) = 6 are
// 6/6, 2/6, 6/6, 2/6, so Pbar = 2/3; of the 12 labels 6 approve, 4
// critical, 2 inquiry, so Pe = 1/4 + 1/9 + 1/36 = 7/18; kappa = (2/3 -
// 7/18) / (1 - 7/18) = 5/11. A message only two judges labelled, and one
// a judge labelled unparseable, are left out.
func TestFleissJudges(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	moves := map[string][]string{ // judge -> moves of m1..m6
		"a": {"approve", "approve", "critical", "inquiry", "approve", "approve"},
		"b": {"approve", "approve", "critical", "approve", "approve", "unparseable"},
		"c": {"approve", "critical", "critical", "inquiry", "", "approve"},
	}
	for j, ms := range moves {
		var ls []queries.Label
		for i, m := range ms {
			if m != "" {
				ls = append(ls, queries.Label{Target: "message", TargetID: "m" + string(rune('1'+i)), Judge: j, Move: m})
			}
		}
		if err := queries.ReplaceLabels(ctx, ws, j, "message", ls); err != nil {
			t.Fatal(err)
		}
	}
	got, err := FleissJudges(ctx, ws.Conn(), []string{"a", "b", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Items != 4 || math.Abs(got.Kappa-5.0/11) > 1e-12 {
		t.Errorf("items %d, kappa %v; want 4 and 5/11 = %v", got.Items, got.Kappa, 5.0/11)
	}
	if _, err := FleissJudges(ctx, ws.Conn(), []string{"a", "b"}); err == nil {
		t.Error("two judges gave no error")
	}
	// A judge with no label in common: the one error the report takes for
	// "no Fleiss kappa".
	if _, err := FleissJudges(ctx, ws.Conn(), []string{"a", "b", "nobody"}); !errors.Is(err, ErrNoCommonTargets) {
		t.Errorf("no target in common: %v, want ErrNoCommonTargets", err)
	}
	// A workspace that cannot be read is a fault, not "no kappa": the
	// report stops on it instead of leaving the kappa out.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := FleissJudges(cancelled, ws.Conn(), []string{"a", "b", "c"}); err == nil || errors.Is(err, ErrNoCommonTargets) {
		t.Errorf("cancelled read: %v, want an error other than ErrNoCommonTargets", err)
	}
}
