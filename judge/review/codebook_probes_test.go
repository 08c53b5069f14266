package review

import (
	"testing"

	"github.com/ub-bench/ub/analysis/probes"
)

// TestEveryProbeProposesACode: the review code each registered probe
// proposes to a reviewer is in the codebook, so a new probe cannot name a
// code the workbench would refuse.
func TestEveryProbeProposesACode(t *testing.T) {
	known := map[string]bool{}
	for _, c := range Codebook {
		known[c.Name] = true
	}
	for _, name := range probes.Names() {
		p, _ := probes.ByName(name)
		if !known[p.ReviewCode] {
			t.Errorf("probe %s proposes review code %q, not in the codebook", name, p.ReviewCode)
		}
	}
}
