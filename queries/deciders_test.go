package queries

import (
	"context"
	"math"
	"testing"
)

// TestLabelsKeepConfidenceAndDecider stores a cascade's labels and reads
// them back by deciding judge: the counts and mean confidences are those of
// the rows written (hand-counted below).
func TestLabelsKeepConfidenceAndDecider(t *testing.T) {
	ctx := context.Background()
	ws, err := Open(ctx, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	labels := []Label{
		{Target: "point", TargetID: "p1", Judge: "cascade", Move: "approve", Confidence: 0.9, DecidedBy: "builtin"},
		{Target: "point", TargetID: "p2", Judge: "cascade", Move: "critical", Confidence: 0.7, DecidedBy: "builtin"},
		{Target: "point", TargetID: "p3", Judge: "cascade", Move: "inquiry", DecidedBy: "gpt"},
		{Target: "point", TargetID: "p4", Judge: "cascade", Move: "other"}, // no decider: the judge itself
	}
	if err := ReplaceLabels(ctx, ws, "cascade", "point", labels); err != nil {
		t.Fatal(err)
	}
	got, err := LabelDeciders(ctx, ws.Conn(), "cascade")
	if err != nil {
		t.Fatal(err)
	}
	// builtin: 2 labels, mean confidence (0.9 + 0.7) / 2 = 0.8; cascade: 1
	// without confidence; gpt: 1 without confidence. Sorted by decider.
	want := []struct {
		by   string
		n    int
		conf float64 // NaN: none stored
	}{{"builtin", 2, 0.8}, {"cascade", 1, math.NaN()}, {"gpt", 1, math.NaN()}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, w := range want {
		g := got[i]
		if g.DecidedBy != w.by || g.N != w.n || g.Target != "point" {
			t.Errorf("row %d = %+v, want %s n=%d", i, g, w.by, w.n)
		}
		if math.IsNaN(w.conf) != !g.MeanConfidence.Valid || (g.MeanConfidence.Valid && math.Abs(g.MeanConfidence.Float64-w.conf) > 1e-12) {
			t.Errorf("row %d mean confidence %+v, want %v", i, g.MeanConfidence, w.conf)
		}
	}
}
