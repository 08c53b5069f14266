package rubric

import (
	"context"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// TestVerdictRows: the verifier's answer decides each criterion; a failed
// request, an unparseable answer and a missing decision reject with their
// reason.
func TestVerdictRows(t *testing.T) {
	cs := []Criterion{{CriterionID: "a-1-w1"}, {CriterionID: "a-1-w2"}, {CriterionID: "a-1-w3"}}
	row := func(c Criterion, status, reason string) queries.Criterion {
		return queries.Criterion{CriterionID: c.CriterionID, Status: status, RejectReason: reason}
	}
	got := func(answer string) string {
		var b strings.Builder
		for _, r := range verdictRows(pendingRubric{cs: cs, answer: answer}, row) {
			b.WriteString(r.CriterionID + " " + r.Status + " " + r.RejectReason + "\n")
		}
		return b.String()
	}
	for _, c := range []struct{ name, answer, want string }{
		{"decided", `{"decisions": [{"criterion_id": "a-1-w1", "keep": true, "reason": "ok"}, {"criterion_id": "a-1-w2", "keep": false, "reason": "vague"}]}`,
			"a-1-w1 accepted \na-1-w2 rejected verifier: vague\na-1-w3 rejected verifier gave no decision\n"},
		{"failed", "", "a-1-w1 rejected verifier: the request failed\na-1-w2 rejected verifier: the request failed\na-1-w3 rejected verifier: the request failed\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if g := got(c.answer); g != c.want {
				t.Errorf("got\n%swant\n%s", g, c.want)
			}
		})
	}
	t.Run("unparseable", func(t *testing.T) {
		g := got("I keep them all.")
		if strings.Count(g, "rejected verifier: unparseable answer: ") != 3 {
			t.Errorf("got\n%s", g)
		}
	})
}

// TestChatRequest: the grader's and rubric writer's requests are at
// temperature 0 with the given token cap, at the endpoint's URL.
func TestChatRequest(t *testing.T) {
	r := ChatRequest(runner.Endpoint{Backend: "openai", BaseURL: "http://x/v1", PriceIn: 3}, "m", []runner.Message{{Role: "system", Content: "s"}, {Role: "user", Content: "u"}}, 300)
	want := `{"backend":"openai","base_url":"http://x/v1","model":"m","params":{"temperature":0,"max_tokens":300},"messages":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"sample":0}`
	if got := string(r.Canonical()); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestFidelityStepsNeedInput: with nothing to grade or write, Grade and
// WriteRubrics say what to ingest and send nothing.
func TestFidelityStepsNeedInput(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := Grade(ctx, ws, GradeOptions{Model: "g"}); err == nil || !strings.Contains(err.Error(), "no episode has a criterion") {
		t.Errorf("grade: %v", err)
	}
	if _, err := WriteRubrics(ctx, ws, RubricWriteOptions{}); err == nil || !strings.Contains(err.Error(), "no tasks in the workspace") {
		t.Errorf("rubrics write: %v", err)
	}
}
