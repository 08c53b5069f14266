package judge

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
	"github.com/ub-bench/ub/sim/runner/runnertest"
	"github.com/ub-bench/ub/sim/simtest"
)

// cascadeItems are messages written for this test: clear moves and
// fragments the built-in judge is sure of, and harder ones.
func cascadeItems() []queries.LabelTarget {
	msgs := []string{
		"ok", "thanks, but it still crashes", "add a logout button", "what does this function return?",
		"lgtm", "why does it fail?", "use postgres for this", "is this thread-safe?",
		"hmm", "the header looks a bit off maybe", "what about the other thing we discussed", "tests",
		"perfect, thanks", "now add tests for the parser", "it doesn't save the form", "which file handles auth?",
		"sure", "could be better", "try again", "the layout, again",
	}
	out := make([]queries.LabelTarget, len(msgs))
	for i, m := range msgs {
		out[i] = queries.LabelTarget{ID: fmt.Sprintf("m%02d", i), Text: m, PrevAgent: "I've updated the handler. Anything else?"}
	}
	return out
}

// TestCascadeEndToEnd: the built-in judge keeps its most confident 70%;
// the least confident 30% go through the runner to a fake model judge that
// fails some first attempts (retried), its answers are parsed and recorded
// as decided by it, and a second run sends nothing.
func TestCascadeEndToEnd(t *testing.T) {
	ctx := context.Background()
	b, err := NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	items := cascadeItems()
	// Every key's first attempt is a 429 (Retry-After 0) once in three,
	// by the key's first byte; the answer is a question when the message
	// has a question mark, else a directive.
	plan := func(key string, attempt int) simtest.Fault {
		if attempt == 1 && key[0]%3 == 0 {
			return simtest.Fault{Kind: simtest.RateLimit, RetryAfter: "0"}
		}
		return simtest.Fault{}
	}
	answer := func(msgs []simtest.Message) string {
		if strings.HasSuffix(msgs[len(msgs)-1].Content, "?\n>>>") {
			return `{"fine": "question", "move": "inquiry"}`
		}
		return `{"fine": "refine_redirect", "move": "directive"}`
	}
	srv := simtest.New(simtest.Options{Plan: plan, Answer: answer})
	defer srv.Close()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	store := runner.NewDuckStore(ws)
	// $1 and $2 per million tokens in and out.
	model := CascadeModel{Name: "fake", Model: "judge-model",
		Endpoint: runner.Endpoint{Backend: "openai", BaseURL: srv.BaseURL(), Concurrency: 4, PriceIn: 1, PriceOut: 2}}
	opts := CascadeOptions{Coverage: 0.7, Step: runner.StepOptions{Clock: runnertest.NewClock()}}
	labels, st, err := Cascade(ctx, items, "point", b, model, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	// 20 items at coverage 0.7: round(14) kept, 6 sent.
	if st.Items != 20 || st.Builtin != 14 || st.Model != 6 || st.Failed != 0 || st.Unparseable != 0 {
		t.Fatalf("stats %+v, want 14 built-in and 6 model labels", st)
	}
	if st.Run.Cost <= 0 || st.Run.Answered != 6 {
		t.Errorf("run %+v: want 6 answered at a cost", st.Run)
	}
	// The six sent are the six of lowest confidence, computed here from the
	// judge directly.
	conf := make([]float64, len(items))
	idx := make([]int, len(items))
	for i, it := range items {
		conf[i], idx[i] = b.Label(it.Text, it.PrevAgent).Confidence, i
	}
	sort.SliceStable(idx, func(x, y int) bool { return conf[idx[x]] > conf[idx[y]] })
	low := map[int]bool{}
	for _, i := range idx[14:] {
		low[i] = true
	}
	completed := srv.Completed()
	if len(labels) != len(items) {
		t.Fatalf("%d labels of %d items", len(labels), len(items))
	}
	for i, l := range labels {
		if l.TargetID != items[i].ID || l.Target != "point" || l.Judge != "builtin+fake" {
			t.Fatalf("label %d is %s %s of %s, want point %s of builtin+fake", i, l.Target, l.TargetID, l.Judge, items[i].ID)
		}
		switch {
		case low[i]:
			want := Directive
			if strings.HasSuffix(items[i].Text, "?") {
				want = Inquiry
			}
			if l.DecidedBy != "fake" || l.Move != want.String() || l.PromptVersion != PromptVersion() || l.RequestKey == "" || completed[simtest.Key(JudgeRequest(srv.BaseURL(), model.Model, items[i].Text, items[i].PrevAgent).Messages)] != 1 {
				t.Errorf("%q: %+v, want decided by fake as %s, sent once", items[i].Text, l, want)
			}
		default:
			if r := b.Label(items[i].Text, items[i].PrevAgent); l.DecidedBy != BuiltinName || l.Move != r.Move.String() || l.PromptVersion != b.Version() || l.RequestKey != "" {
				t.Errorf("%q: %+v, want the built-in label %s", items[i].Text, l, r.Move)
			}
		}
		if l.Confidence <= 0 || l.Confidence >= 1 {
			t.Errorf("%q: confidence %v outside (0, 1)", items[i].Text, l.Confidence)
		}
	}
	if retries := len(srv.Log()) - 6; retries == 0 || st.Run.Retries != retries {
		t.Errorf("%d retried calls logged, runner counted %d; the plan makes some", retries, st.Run.Retries)
	}
	sent := len(srv.Log())
	again, st2, err := Cascade(ctx, items, "point", b, model, store, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Log()) != sent || st2.Run.Cached != 6 || st2.Run.Cost != 0 {
		t.Errorf("second run sent %d requests (%+v), want none", len(srv.Log())-sent, st2.Run)
	}
	for i := range again {
		if again[i] != labels[i] {
			t.Errorf("second run label %d = %+v, first %+v", i, again[i], labels[i])
		}
	}
}

func TestCascadeCoverageBounds(t *testing.T) {
	b, err := NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Cascade(context.Background(), cascadeItems(), "point", b, CascadeModel{}, runner.NewMemStore(), CascadeOptions{Coverage: 1.5}); err == nil {
		t.Error("coverage 1.5 accepted")
	}
	// Coverage 1 keeps everything and needs no backend.
	ls, st, err := Cascade(context.Background(), cascadeItems(), "point", b, CascadeModel{}, runner.NewMemStore(), CascadeOptions{Coverage: 1})
	if err != nil || st.Builtin != 20 || st.Model != 0 || len(ls) != 20 {
		t.Errorf("coverage 1: %+v %v", st, err)
	}
}
