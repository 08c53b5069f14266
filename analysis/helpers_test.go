package analysis

import (
	"math"
	"testing"
)

// near reports whether got is within tol of want; NaN matches only NaN and
// an infinity only the same infinity.
func near(got, want, tol float64) bool {
	switch {
	case math.IsNaN(want):
		return math.IsNaN(got)
	case math.IsInf(want, 0):
		return got == want
	}
	return math.Abs(got-want) <= tol
}

func checkFloat(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %.9g, want %.9g (tol %g)", name, got, want, tol)
	}
}

// devOutcomes returns n moments of one developer, the first hits of them
// scored correctly.
func devOutcomes(dev string, hits, n int) []Outcome {
	out := make([]Outcome, n)
	for i := range out {
		g := "approve"
		if i < hits {
			g = "directive"
		}
		out[i] = Outcome{Developer: dev, Real: "directive", Generated: g}
	}
	return out
}

// cat concatenates outcome slices.
func cat(parts ...[]Outcome) []Outcome {
	var out []Outcome
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
