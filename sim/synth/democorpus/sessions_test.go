package democorpus

import (
	"math/rand/v2"
	"testing"

	"github.com/ub-bench/ub"
)

func TestDemoMove(t *testing.T) {
	tests := []struct {
		name, text, want string
		ok               bool
	}{
		{"an approval without a noun", "lgtm", "approve", true},
		{"a fault report with a noun", "no, the cache still crashes on empty input", "critical", true},
		{"a request with a noun, surrounding space", "  write tests for the parser\n", "directive", true},
		{"a question", "is the API client safe to call twice?", "inquiry", true},
		{"a command", "/add parser.go", "", false},
		{"a noun no template uses", "write tests for the moon", "", false},
		{"free text", "please help", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Move(tt.text)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Move(%q) = %q, %v; want %q, %v", tt.text, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestDemoMoveRecoversSessions: every non-command developer message of
// generated sessions is recognised as one of the demo's moves.
func TestDemoMoveRecoversSessions(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	seen := map[string]int{}
	for s := 0; s < 50; s++ {
		for _, turn := range demoSession(r, demoDevs[0]) {
			if turn.role != ub.RoleDeveloper || turn.command {
				continue
			}
			m, ok := Move(turn.text)
			if !ok {
				t.Fatalf("session %d: %q not recognised", s, turn.text)
			}
			seen[m]++
		}
	}
	if len(seen) != 4 {
		t.Errorf("50 sessions gave moves %v, want all four", seen)
	}
}
