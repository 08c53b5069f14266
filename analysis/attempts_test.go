package analysis

import (
	"math"
	"testing"
)

// TestAttemptErrorShare: 4 errors in 40 kept episodes, 10 attempts
// discarded before them: 14 errors in 50 attempts. Wilson 95% intervals by
// hand (z = 1.959964): for 4/40, centre (0.1 + z²/80)/(1 + z²/40) and
// half-width z·sqrt(0.1·0.9/40 + z²/6400)/(1 + z²/40) give
// [0.039580, 0.230518]; for 14/50, [0.174742, 0.416651].
func TestAttemptErrorShare(t *testing.T) {
	s, err := AttemptErrorShare(4, 40, 10, 0.95, nil)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 5e-6 }
	if s.Kept.K != 4 || s.Kept.N != 40 || !near(s.Kept.P, 0.1) || !near(s.Kept.Lo, 0.039580) || !near(s.Kept.Hi, 0.230518) {
		t.Errorf("kept %+v", s.Kept)
	}
	if s.Discarded != 10 || s.PerAttempt.K != 14 || s.PerAttempt.N != 50 || !near(s.PerAttempt.P, 0.28) ||
		!near(s.PerAttempt.Lo, 0.174742) || !near(s.PerAttempt.Hi, 0.416651) {
		t.Errorf("per attempt %+v", s.PerAttempt)
	}
	if _, err := AttemptErrorShare(0, 0, 0, 0.95, nil); err == nil {
		t.Error("no episode: no error")
	}
}
