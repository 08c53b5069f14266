package runner

import (
	"strings"
	"testing"
)

func TestExplainMiss(t *testing.T) {
	t1 := 0.7
	base := Request{Backend: "openai", Model: "m", Params: Params{Temperature: &t1},
		Messages: []Message{{"system", "be a developer"}, {"user", "conversation"}}}
	t2 := 0.2
	tests := []struct {
		name   string
		change func(r *Request)
		want   []string
	}{
		{"same request explains nothing", func(r *Request) {}, nil},
		{"model", func(r *Request) { r.Model = "m2" }, []string{`model changed: "m" -> "m2"`}},
		{"temperature", func(r *Request) { r.Params.Temperature = &t2 }, []string{"parameters"}},
		{"second message", func(r *Request) { r.Messages = []Message{{"system", "be a developer"}, {"user", "other"}} }, []string{"message 1 changed"}},
		{"sample", func(r *Request) { r.Sample = 1 }, []string{"sample index changed: 0 -> 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := base
			now.Messages = append([]Message(nil), base.Messages...)
			tt.change(&now)
			got := ExplainMiss(base.Parts(), now.Parts())
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %d reasons", got, len(tt.want))
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("reason %q, want it to contain %q", got[i], tt.want[i])
				}
			}
			if (len(got) == 0) != (base.Key() == now.Key()) {
				t.Errorf("explanation %q disagrees with keys equal = %v", got, base.Key() == now.Key())
			}
		})
	}
}
