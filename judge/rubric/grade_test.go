package rubric

import (
	"strings"
	"testing"
)

func TestParseGrade(t *testing.T) {
	for _, c := range []struct {
		in, verdict string
		turn        int // -1: none
		ok          bool
	}{
		{`{"verdict": "pass", "turn_idx": null, "reason": "ok"}`, "pass", -1, true},
		{"```json\n{\"verdict\": \"fail\", \"turn_idx\": 3, \"reason\": \"at [3]\"}\n```", "fail", 3, true},
		{`{"verdict": "na", "reason": "never arose"}`, "na", -1, true},
		{`{"verdict": "fail", "reason": "no turn"}`, "", -1, false},
		{`{"verdict": "pass", "turn_idx": 2, "reason": "x"}`, "", -1, false},
		{`{"verdict": "maybe", "turn_idx": null}`, "", -1, false},
		{`{"verdict": "pass", "extra": 1}`, "", -1, false},
		{`{"verdict": "pass"} and more`, "", -1, false},
		{`{"verdict": "pass", "verdict": "fail"}`, "", -1, false},
		{`The user passes.`, "", -1, false},
	} {
		v, turn, _, err := ParseGrade(c.in)
		if (err == nil) != c.ok || v != c.verdict || (turn == nil) != (c.turn < 0) || (turn != nil && *turn != c.turn) {
			t.Errorf("ParseGrade(%q) = %q, %v, %v", c.in, v, turn, err)
		}
	}
}

func TestGradeMessagesShowTheEpisode(t *testing.T) {
	msgs := GradeMessages(GradeItem{
		Blueprint:  Blueprint{KnownInfo: "Your user id is ann_1."},
		Criterion:  Criterion{CriterionID: "c1", Family: "disclosure", Mode: "volunteers_unasked_info", Quote: "Your user id is ann_1.", QuoteSource: "known_info", Text: "No id before asked."},
		Transcript: []TranscriptLine{{0, "assistant", "Hi!", nil}, {1, "user", "I'm ann_1.\nHelp.", nil}, {2, "assistant", "", []string{`find_user({"id":"ann_1"})`}}},
	})
	if len(msgs) != 2 || msgs[0].Content != gradePrompt {
		t.Fatalf("%+v", msgs)
	}
	for _, w := range []string{"known_info: Your user id is ann_1.", "CRITERION c1 (family disclosure", "[0] agent: Hi!", "[1] user: I'm ann_1. Help.", `(tool calls: find_user({"id":"ann_1"}))`} {
		if !strings.Contains(msgs[1].Content, w) {
			t.Errorf("prompt lacks %q:\n%s", w, msgs[1].Content)
		}
	}
	if !strings.HasPrefix(GradePromptVersion(), "grade/1+") {
		t.Error(GradePromptVersion())
	}
}
