package judge_test

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"testing"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
	"github.com/ub-bench/ub/sim/synth"
)

// judgeFake answers a judge request by the length of its prompt: a third
// are refused (HTTP 400, permanent), a third answered with text that is no
// label, the rest labelled directive.
func judgeFake(calls *atomic.Int64) runner.Backend {
	return runner.BackendFunc(func(_ context.Context, r runner.Request) (runner.Response, error) {
		calls.Add(1)
		switch judgeFakeKind(r) {
		case 0:
			return runner.Response{}, &runner.CallError{Status: 400, Permanent: true, Msg: "refused"}
		case 1:
			return runner.Response{Text: "hmm", TokensIn: 100, TokensOut: 1}, nil
		}
		return runner.Response{Text: `{"move": "directive"}`, TokensIn: 100, TokensOut: 5}, nil
	})
}

func judgeFakeKind(r runner.Request) int { return len(r.Messages[len(r.Messages)-1].Content) % 3 }

// synthWorkspace is an in-memory workspace holding the synthetic study of
// seed 3.
func synthWorkspace(t *testing.T) (*queries.Workspace, synth.Stats) {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	st, err := synth.Write(ctx, ws, synth.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return ws, st
}

var errNoKey = errors.New("no key")

func TestJudgeStepRequestIsTheCascadeRequest(t *testing.T) {
	// The request ub judge --model sent before the step moved to sim,
	// written out field by field: the cache keys of existing workspaces
	// depend on it.
	zero := 0.0
	var msgs []runner.Message
	for _, m := range judge.PromptMessages("fix the test", "I changed foo.go") {
		msgs = append(msgs, runner.Message{Role: m.Role, Content: m.Content})
	}
	was := runner.Request{Backend: "openai", BaseURL: "http://x/v1", Model: "m", Params: runner.Params{Temperature: &zero, MaxTokens: 64}, Messages: msgs}
	step := judge.JudgeStep(runner.Endpoint{Backend: "openai", BaseURL: "http://x/v1"}, "m", "j", "point")
	got, err := step.Build(queries.LabelTarget{ID: "p1", Text: "fix the test", PrevAgent: "I changed foo.go"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Key() != was.Key() || judge.JudgeRequest("http://x/v1", "m", "fix the test", "I changed foo.go").Key() != was.Key() {
		t.Errorf("judge request key %s, want %s", got.Key(), was.Key())
	}
}

func TestJudgeWithModelAndCascadeStoreWhatWasAnswered(t *testing.T) {
	ctx := context.Background()
	ws, st := synthWorkspace(t)
	items, err := queries.PointMessages(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != st.Points {
		t.Fatalf("%d point messages, want %d", len(items), st.Points)
	}
	ep := runner.Endpoint{Backend: "openai", BaseURL: "http://fake/v1", PriceIn: 1, PriceOut: 1}
	var want [3]int // refused, unparseable, directive
	for _, it := range items {
		want[judgeFakeKind(judge.JudgeRequest(ep.BaseURL, "m", it.Text, it.PrevAgent))]++
	}

	var calls atomic.Int64
	res, err := judge.JudgeWithModel(ctx, ws, judge.ModelJudgeOptions{Judge: "fake", Model: "m", Endpoint: ep, Target: "points", Client: judgeFake(&calls)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "point" || res.Failed != want[0] || res.Counts["unparseable"] != want[1] || res.Counts["directive"] != want[2] || res.Labels != want[1]+want[2] {
		t.Errorf("model judge %+v, want %d refused, %d unparseable, %d directive", res, want[0], want[1], want[2])
	}
	// Cost: 100 tokens in at $1 per million, 1 or 5 out.
	if wantCost := (float64(want[1])*101 + float64(want[2])*105) / 1e6; math.Abs(res.Stats.Cost-wantCost) > 1e-12 {
		t.Errorf("cost %v, want %v", res.Stats.Cost, wantCost)
	}
	js, err := queries.Judges(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, j := range js {
		if j.Judge == "fake" {
			found = j.Target == "point" && j.N == res.Labels && j.Unparseable == want[1]
		}
	}
	if !found {
		t.Errorf("stored judges %+v: want fake with %d point labels, %d unparseable", js, res.Labels, want[1])
	}
	if _, err := judge.JudgeWithModel(ctx, ws, judge.ModelJudgeOptions{Judge: "fake", Model: "m", Endpoint: ep, Target: "points",
		Preflight: func() error { return errNoKey }}); !errors.Is(err, errNoKey) {
		t.Errorf("refused preflight: err %v", err)
	}

	// The cascade sends the least confident 30% with the same requests:
	// all of them were answered above, so nothing is sent again.
	b, err := judge.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	sent := calls.Load()
	cr, err := judge.JudgeCascade(ctx, ws, b, judge.CascadeJudgeOptions{Judge: "fake", Model: "m", Endpoint: ep, Target: "points", Coverage: 0.7, Client: judgeFake(&calls)})
	if err != nil {
		t.Fatal(err)
	}
	keep := int(math.Round(0.7 * float64(len(items))))
	cs := cr.Stats
	if calls.Load() != sent || cr.Judge != "builtin+fake" || cs.Builtin != keep || cs.Model+cs.Failed != len(items)-keep || cr.Labels != len(items)-cs.Failed {
		t.Errorf("cascade %+v, %d new calls: want %d kept by the built-in judge, the rest from the cache", cr, calls.Load()-sent, keep)
	}
	ds, err := queries.LabelDeciders(ctx, ws.Conn(), "builtin+fake")
	if err != nil {
		t.Fatal(err)
	}
	byDecider := map[string]int{}
	for _, d := range ds {
		byDecider[d.DecidedBy] += d.N
	}
	if byDecider[judge.BuiltinName] != keep || byDecider["fake"] != cs.Model {
		t.Errorf("stored deciders %v, want builtin %d and fake %d", byDecider, keep, cs.Model)
	}
}
