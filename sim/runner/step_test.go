package runner

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"testing"
)

// stepItem is a test item: a name, and whether the fake endpoint refuses it.
type stepItem struct {
	name string
	bad  bool
}

// testStep builds one request per item and parses an answer into "name=text"
// rows; a failed answer is a failure, a missing one a row "name=missing".
func testStep(ep Endpoint) Step[stepItem, string] {
	return Step[stepItem, string]{
		Endpoint: ep,
		Build: func(it stepItem) (Request, error) {
			return Request{Backend: "openai", Model: "m", Messages: []Message{{Role: "user", Content: it.name}}}, nil
		},
		Parse: func(it stepItem, a Answer) ([]string, error) {
			switch {
			case !a.Stored:
				return []string{it.name + "=missing"}, nil
			case a.Err != "":
				return nil, fmt.Errorf("%s: %s", it.name, a.Err)
			}
			return []string{it.name + "=" + a.Text}, nil
		},
	}
}

// echo is runnertest.Echo, which this package's own tests cannot import
// (runnertest imports runner).
func echo(calls *atomic.Int64) Backend {
	return BackendFunc(func(_ context.Context, r Request) (Response, error) {
		calls.Add(1)
		m := r.Messages[len(r.Messages)-1].Content
		if strings.HasPrefix(m, "bad") {
			return Response{}, &CallError{Status: 400, Permanent: true, Msg: "bad request"}
		}
		return Response{Text: strings.ToUpper(m), TokensIn: 1000, TokensOut: 500}, nil
	})
}

func TestRunStepRowsFailuresCostAndCache(t *testing.T) {
	ctx := context.Background()
	var calls atomic.Int64
	store := NewMemStore()
	items := []stepItem{{name: "a"}, {name: "bad1"}, {name: "b"}, {name: "a"}} // "a" twice: sent once
	// $2 and $8 per million tokens: 1000*2/1e6 + 500*8/1e6 = 0.002 + 0.004 = $0.006 per answer.
	ep := Endpoint{Backend: "openai", PriceIn: 2, PriceOut: 8, Concurrency: 2, RateLimit: 1000}
	res, err := RunStep(ctx, store, items, testStep(ep), StepOptions{Client: echo(&calls), Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Rows, ","), "a=A,b=B,a=A"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	if len(res.Failures) != 1 || res.Failures[0].Index != 1 || !strings.Contains(res.Failures[0].Err.Error(), "HTTP 400") {
		t.Errorf("failures %+v, want item 1 with its HTTP 400", res.Failures)
	}
	if calls.Load() != 3 || res.Stats.Sent != 3 || res.Stats.Unique != 3 {
		t.Errorf("calls %d, stats %+v: want 3 distinct requests sent once each", calls.Load(), res.Stats)
	}
	if math.Abs(res.Stats.Cost-2*0.006) > 1e-12 {
		t.Errorf("cost %v, want 2 answers x $0.006", res.Stats.Cost)
	}
	if len(res.Keys) != 4 || res.Keys[0] != res.Keys[3] || res.Keys[0] != res.Requests[0].Key() {
		t.Errorf("keys %v: want one per item, equal for equal requests", res.Keys)
	}
	// Again: every answer and the permanent failure come from the store.
	res, err = RunStep(ctx, store, items, testStep(ep), StepOptions{Client: echo(&calls), Clock: newFakeClock()})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || res.Stats.Cached != 2 || res.Stats.SkippedFailed != 1 || len(res.Rows) != 3 || len(res.Failures) != 1 {
		t.Errorf("second run: calls %d, stats %+v, rows %v: want nothing sent", calls.Load(), res.Stats, res.Rows)
	}
}

func TestRunStepBatchReadsStoreOnly(t *testing.T) {
	ctx := context.Background()
	store := NewMemStore()
	s := testStep(Endpoint{Backend: "openai-batch"})
	items := []stepItem{{name: "x"}, {name: "y"}, {name: "z"}}
	// x answered by a batch file, y failed retryably, z not answered yet.
	rx, _ := s.Build(items[0])
	ry, _ := s.Build(items[1])
	if err := store.Put(ctx, []Entry{{Request: rx, Response: Response{Text: "from batch", ViaBatch: true}},
		{Request: ry, Response: Response{Err: "HTTP 500: overloaded"}}}); err != nil {
		t.Fatal(err)
	}
	never := BackendFunc(func(context.Context, Request) (Response, error) {
		t.Error("a batch endpoint was called live")
		return Response{}, nil
	})
	res, err := RunStep(ctx, store, items, s, StepOptions{Client: never})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Rows, ","), "x=from batch,z=missing"; got != want || len(res.Failures) != 1 {
		t.Errorf("rows %q failures %v, want %q and y failed", got, res.Failures, want)
	}
	// With RetryFailed the retryable failure is missing again: it goes
	// into the next batch file.
	res, err = RunStep(ctx, store, items, s, StepOptions{Client: never, RetryFailed: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(res.Rows, ","), "x=from batch,y=missing,z=missing"; got != want {
		t.Errorf("retry-failed rows %q, want %q", got, want)
	}
}

func TestRunStepBuildErrorSendsNothing(t *testing.T) {
	var calls atomic.Int64
	s := testStep(Endpoint{Backend: "openai"})
	s.Build = func(it stepItem) (Request, error) {
		if it.name == "broken" {
			return Request{}, fmt.Errorf("item %s: no prompt", it.name)
		}
		return Request{Backend: "openai", Model: "m"}, nil
	}
	_, err := RunStep(context.Background(), NewMemStore(), []stepItem{{name: "a"}, {name: "broken"}}, s, StepOptions{Client: echo(&calls)})
	if err == nil || !strings.Contains(err.Error(), "broken") || calls.Load() != 0 {
		t.Errorf("err %v, calls %d: want the build error and no call", err, calls.Load())
	}
}

func TestEndpointCost(t *testing.T) {
	// 1e6 tokens in at $3, 2e5 out at $15: 3 + 3 = $6; batch at 0.5: $3;
	// batch with a 0.4 discount: $2.4.
	e := Endpoint{PriceIn: 3, PriceOut: 15}
	for _, c := range []struct {
		disc  float64
		batch bool
		want  float64
	}{{0, false, 6}, {0, true, 3}, {0.4, true, 2.4}} {
		e.BatchDiscount = c.disc
		if got := e.Cost(1_000_000, 200_000, c.batch); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("discount %v batch %v: cost %v, want %v", c.disc, c.batch, got, c.want)
		}
	}
}
