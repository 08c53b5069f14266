package reports

import (
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// TestUserFidelityNamesReleases: banking_knowledge runs from v1.0.0
// (17e07b1) and v1.0.1 (fc0055d) are named by release and warned about;
// a commit of no known release is counted as such.
func TestUserFidelityNamesReleases(t *testing.T) {
	s := func(v string) *string { return &v }
	ep := &queries.EpisodeReport{Episodes: []queries.EpisodeRow{
		{SimulationID: "a", Format: "tau2", Domain: "banking_knowledge", UserSim: "A", Agent: "g", TaskID: "0", Reward: fptr(1), SourceFile: "old.json", GitCommit: s("17e07b1da2bbc0cadfddeea36412686e0604127b")},
		{SimulationID: "b", Format: "tau2", Domain: "banking_knowledge", UserSim: "A", Agent: "g", TaskID: "0", Reward: fptr(1), SourceFile: "new.json", GitCommit: s("fc0055dc4e0a316c3f83133267fbd6faaa770992")},
		{SimulationID: "c", Format: "tau2", Domain: "airline", UserSim: "A", Agent: "g", TaskID: "0", Reward: fptr(0), SourceFile: "other.json", GitCommit: s("0123456789abcdef")},
	}}
	var b strings.Builder
	Prepare(Input{Episodes: ep}).userFidelity(&b)
	md := b.String()
	for _, want := range []string{
		"v1.0.0 (1 commits), v1.0.1 (1 commits), no known release (1 commits)",
		"**Warning:** banking\\_knowledge runs mix tau2-bench releases before v1.0.1 (v1.0.0) and from it on (v1.0.1)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("section lacks %q:\n%s", want, md)
		}
	}
}
