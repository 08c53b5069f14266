package sim

import (
	"encoding/json"
	"github.com/ub-bench/ub/sim/runner"
	"math"
	"reflect"
	"strings"
	"testing"
)

// profileFixture: eight messages whose statistics are worked out by hand in
// TestComputeProfile.
func profileFixture() []ProfileMessage {
	return []ProfileMessage{
		{"s1", 0, "ok go ahead", "approve"},                               // 3 words
		{"s1", 2, "Ok, fix the bug in `main.go` please", "directive"},     // 7 words, code
		{"s1", 4, "why does parseConfig fail?", "inquiry"},                // 4 words, code, question
		{"s2", 1, "ok go ahead and run the tests for me", "approve"},      // 9 words
		{"s2", 3, "what is https://example.com/a?b=1 for", "unparseable"}, // 4 words, code (path); "?b" is no question
		{"s3", 1, "修复这个错误", ""},                                           // 6 words (CJK characters)
		{"s3", 3, "and/or whatever?", ""},                                 // 2 words, question; and/or is no path
		{"s3", 5, "Run `go test ./...` then commit", ""},                  // 6 words, code
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestComputeProfile(t *testing.T) {
	s := ComputeProfile("ann", profileFixture(), ProfileOptions{Seed: 7})
	// Words, sorted: 2 3 4 4 6 6 7 9 (n = 8).
	// Median (type 7): h = 7 * 0.5 = 3.5 -> 4 + 0.5 * (6 - 4) = 5.
	// P90: h = 7 * 0.9 = 6.3 -> 7 + 0.3 * (9 - 7) = 7.6.
	if !near(s.MedianWords, 5) || !near(s.P90Words, 7.6) {
		t.Errorf("median %v, p90 %v; want 5, 7.6", s.MedianWords, s.P90Words)
	}
	if s.Messages != 8 || s.Sessions != 3 || s.Developer != "ann" || s.Seed != 7 {
		t.Errorf("counts: %+v", s)
	}
	if !near(s.CodeShare, 4.0/8) || !near(s.QuestionShare, 2.0/8) {
		t.Errorf("code share %v (want 0.5), question share %v (want 0.25)", s.CodeShare, s.QuestionShare)
	}
	// First words: ok x3 ("ok", "Ok," and "ok"), the rest once (not kept).
	if want := []Opening{{"ok", 3, 3.0 / 8}}; !reflect.DeepEqual(s.FirstWords, want) {
		t.Errorf("first words = %+v, want %+v", s.FirstWords, want)
	}
	if want := []Opening{{"ok go", 2, 2.0 / 8}}; !reflect.DeepEqual(s.FirstBigrams, want) {
		t.Errorf("first bigrams = %+v, want %+v", s.FirstBigrams, want)
	}
	// Labelled: 4 (the unparseable one and the unlabelled ones do not count).
	wantMix := map[string]float64{"approve": 0.5, "directive": 0.25, "inquiry": 0.25}
	if s.Labelled != 4 || !reflect.DeepEqual(s.MoveMix, wantMix) {
		t.Errorf("labelled %d, mix %v; want 4, %v", s.Labelled, s.MoveMix, wantMix)
	}
	if len(s.Examples) != 5 {
		t.Errorf("%d examples, want 5", len(s.Examples))
	}
	texts := map[string]bool{}
	for _, m := range profileFixture() {
		texts[m.Text] = true
	}
	for _, e := range s.Examples {
		if !texts[e] {
			t.Errorf("example %q is no message", e)
		}
	}

	p := RenderPersona(s)
	for _, want := range []string{
		"From 8 messages in 3 earlier sessions:",
		"a median of 5 words; 90% of messages are at most 7.6 words.",
		"50% of messages mention code, commands or file paths; 25% ask a question.",
		`Often starts with: "ok" (38%).`,
		`Typical openings: "ok go" (25%).`,
		"What their messages do: approve 50%, directive 25%, inquiry 25%.",
		"- Example messages:\n  - \"",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("persona lacks %q:\n%s", want, p)
		}
	}
}

func TestComputeProfileOrderAndSeed(t *testing.T) {
	msgs := profileFixture()
	a := ComputeProfile("ann", msgs, ProfileOptions{Seed: 1})
	rev := make([]ProfileMessage, len(msgs))
	for i, m := range msgs {
		rev[len(msgs)-1-i] = m
	}
	b := ComputeProfile("ann", rev, ProfileOptions{Seed: 1})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Errorf("input order changed the profile:\n%s\n%s", ja, jb)
	}
	differs := false
	for seed := int64(2); seed < 10; seed++ {
		c := ComputeProfile("ann", msgs, ProfileOptions{Seed: seed})
		differs = differs || !reflect.DeepEqual(c.Examples, a.Examples)
	}
	if !differs {
		t.Error("the seed never changes the examples")
	}
}

func TestComputeProfileEdges(t *testing.T) {
	empty := ComputeProfile("zed", nil, ProfileOptions{})
	if empty.Messages != 0 || empty.MoveMix != nil || RenderPersona(empty) != "No earlier messages of this developer are known." {
		t.Errorf("empty profile: %+v / %q", empty, RenderPersona(empty))
	}
	one := ComputeProfile("one", []ProfileMessage{{"s", 1, "lgtm", ""}}, ProfileOptions{})
	if one.MedianWords != 1 || one.P90Words != 1 || !strings.Contains(RenderPersona(one), "From 1 message in 1 earlier session:") {
		t.Errorf("one message: %+v\n%s", one, RenderPersona(one))
	}
	// Only long messages: examples are cut to 30 words.
	long := strings.Repeat("word ", 40)
	s := ComputeProfile("verbose", []ProfileMessage{{"s", 1, "a " + long, ""}, {"s", 2, "b " + long, ""}}, ProfileOptions{Examples: 3})
	if len(s.Examples) != 2 {
		t.Fatalf("examples = %q", s.Examples)
	}
	for _, e := range s.Examples {
		if len(strings.Fields(e)) != 31 || !strings.HasSuffix(e, " …") {
			t.Errorf("long example not cut to 30 words: %q", e)
		}
	}
	// Duplicates (up to case and spacing) are one example.
	d := ComputeProfile("dup", []ProfileMessage{{"s", 1, "ok", ""}, {"s", 2, "OK", ""}, {"s", 3, " ok ", ""}}, ProfileOptions{})
	if len(d.Examples) != 1 {
		t.Errorf("duplicate examples: %q", d.Examples)
	}
}

func TestWordCount(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"  hello   world\n", 2},
		{"修复这个错误", 6},
		{"修复 bug", 3},
		{"用Go写", 3}, // two CJK characters and the Latin rest
		{"привет мир", 2},
		{"`x := 1`", 3},
	}
	for _, tt := range tests {
		if got := WordCount(tt.in); got != tt.want {
			t.Errorf("WordCount(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestHasCodeAndQuestion(t *testing.T) {
	code := []struct {
		in   string
		want bool
	}{
		{"looks good", false},
		{"use `fmt.Println`", true},
		{"edit src/app/main", true},
		{"fix README.md", true},
		{"call render() again", true},
		{"rename user_id", true},
		{"the parseConfig helper", true},
		{"run with --verbose", true},
		{"if a == b", true},
		{"and/or maybe", false},
		{"e.g. later", false},
		{"yes.", false},
	}
	for _, tt := range code {
		if got := hasCode(tt.in); got != tt.want {
			t.Errorf("hasCode(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	q := []struct {
		in   string
		want bool
	}{
		{"why?", true},
		{"is it done? then go", true},
		{"(really?)", true},
		{"これは何？", true},
		{"see https://x.io/?q=1", false},
		{"do it", false},
	}
	for _, tt := range q {
		if got := isQuestion(tt.in); got != tt.want {
			t.Errorf("isQuestion(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDistillRequest(t *testing.T) {
	s := ComputeProfile("ann", profileFixture(), ProfileOptions{Seed: 1})
	long := strings.Repeat("x", 800)
	req := DistillRequest(s, []string{"fix it now", long})
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || req.Backend != "" || req.Model != "" {
		t.Fatalf("request = %+v", req)
	}
	c := req.Messages[0].Content
	for _, want := range []string{"second person", "From 8 messages in 3 earlier sessions", `- "fix it now"`, "[... 300 characters cut ...]"} {
		if !strings.Contains(c, want) {
			t.Errorf("distillation prompt lacks %q:\n%s", want, c)
		}
	}
	if strings.Contains(c, "Example messages:") {
		t.Error("the stats' own examples should not repeat in the distillation prompt")
	}
	if DistillRequest(s, []string{"fix it now", long}).Key() != req.Key() {
		t.Error("DistillRequest is not deterministic")
	}
	if DistillTemplate().Version == PersonaTemplate().Version {
		t.Error("distill and persona templates share a version")
	}
	if p, err := ModelPersona(runner.Response{Text: "  You are terse.\n"}); err != nil || p != "You are terse." {
		t.Errorf("ModelPersona = %q, %v", p, err)
	}
	for _, r := range []runner.Response{{Err: "429"}, {Text: "  "}} {
		if _, err := ModelPersona(r); err == nil {
			t.Errorf("ModelPersona(%+v): no error", r)
		}
	}
}
