package analysis

import (
	"strings"
	"testing"
)

func TestTau2Release(t *testing.T) {
	for _, c := range []struct {
		commit, want string
		ok           bool
	}{
		{"fc0055d", "v1.0.1", true},
		{"17E07B1DA2BB", "v1.0.0", true},
		{"40f46d3540dc95aca145ddecb0464fdd9a1e8c15", "v0.1.2", true},
		{"8d005b0e", "v0.2.0+", true},
		{"abc123", "", false}, // too short to tell
		{"0123456789", "", false},
	} {
		got, _, ok := Tau2Release(c.commit)
		if got != c.want || ok != c.ok {
			t.Errorf("Tau2Release(%q) = %q, %v; want %q, %v", c.commit, got, ok, c.want, c.ok)
		}
	}
	_, a, _ := Tau2Release("f8de30c") // v0.2.0
	_, b, _ := Tau2Release("8d005b0") // after it
	_, d, _ := Tau2Release("17e07b1") // v1.0.0
	if !(a < b && b < d) {
		t.Errorf("ranks %d %d %d not in release order", a, b, d)
	}
}

func TestTau2ReleaseWarnings(t *testing.T) {
	mixed := []Tau2Run{{"17e07b1", "banking_knowledge"}, {"fc0055d", "banking_knowledge"}, {"f8de30c", "airline"}}
	w := Tau2ReleaseWarnings(mixed)
	if len(w) != 1 || !strings.Contains(w[0], "before v1.0.1 (v1.0.0) and from it on (v1.0.1)") {
		t.Errorf("mixed banking_knowledge: %q", w)
	}
	// Other domains' grading did not change: no warning.
	if w := Tau2ReleaseWarnings([]Tau2Run{{"17e07b1", "airline"}, {"fc0055d", "airline"}}); len(w) != 0 {
		t.Errorf("airline: %q", w)
	}
	if w := Tau2ReleaseWarnings([]Tau2Run{{"fc0055d", "banking_knowledge"}, {"fc0055d", "banking_knowledge"}}); len(w) != 0 {
		t.Errorf("one release: %q", w)
	}
	if w := Tau2ReleaseWarnings([]Tau2Run{{"fc0055d", "banking_knowledge"}, {"deadbeef00", "banking_knowledge"}}); len(w) != 1 || !strings.Contains(w[0], "no known release") {
		t.Errorf("unknown beside known: %q", w)
	}
}
