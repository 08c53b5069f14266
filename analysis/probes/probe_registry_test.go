package probes

import (
	"fmt"
	"strings"
	"testing"
)

// TestProbeRegistry: the probes register in report order, each with a
// description and a review code; the order is by number, then suffix.
func TestProbeRegistry(t *testing.T) {
	if got := fmt.Sprint(Names()); !strings.HasPrefix(got, "[P0 P1 P1a P2 P3 P4 P5 P6") {
		t.Errorf("probes %s, want P0 P1 P1a P2 ... P6 first", got)
	}
	for _, p := range registry {
		if p.Description == "" || p.ReviewCode == "" || p.Applies == nil || p.Find == nil {
			t.Errorf("probe %s incomplete: %+v", p.Name, p)
		}
	}
	if Range() != "P0-"+registry[len(registry)-1].Name {
		t.Errorf("range %s", Range())
	}
	for _, c := range []struct {
		a, b string
		less bool
	}{{"P1", "P1a", true}, {"P1a", "P2", true}, {"P2", "P10", true}, {"P10", "P9", false}, {"P1a", "P1", false}} {
		if probeLess(c.a, c.b) != c.less {
			t.Errorf("probeLess(%s, %s) = %v", c.a, c.b, !c.less)
		}
	}
	if _, ok := ByName("P9x"); ok {
		t.Error("P9x found")
	}
}
