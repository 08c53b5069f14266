package runner

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"
)

// Endpoint is a model endpoint that a step sends its requests to, with the
// limits and prices of calling it. SimulatorConfig.Endpoint gives a
// simulator's; a judge or a distilling model fills one from its flags.
type Endpoint struct {
	// Backend is "openai" (called live) or a batch backend ("openai-batch",
	// "anthropic-batch"), whose answers come only from provider batch files
	// imported into the store (ub batch import): RunStep never calls it.
	Backend     string
	BaseURL     string
	APIKeyEnv   string        // the NAME of the variable holding the key, never the key
	Timeout     time.Duration // per call; 0 means the client's default (120 s)
	Concurrency int           // calls in flight; 0 means 4
	RateLimit   float64       // calls per second; 0 means unlimited
	MaxAttempts int           // calls per request in one run; 0 means 6
	// PriceIn and PriceOut are USD per million input and output tokens;
	// BatchDiscount is the price factor of batch answers, 0 meaning 0.5.
	PriceIn, PriceOut, BatchDiscount float64
}

// Cost is the USD price of an answer: tokensIn * PriceIn + tokensOut *
// PriceOut per million tokens, times BatchDiscount (0 means 0.5) for an
// answer that came through a provider batch file.
func (e Endpoint) Cost(tokensIn, tokensOut int, viaBatch bool) float64 {
	c := (float64(tokensIn)*e.PriceIn + float64(tokensOut)*e.PriceOut) / 1e6
	if viaBatch {
		d := e.BatchDiscount
		if d == 0 {
			d = 0.5
		}
		c *= d
	}
	return c
}

// IsBatch reports whether a backend is answered through provider batch
// files rather than live calls.
func IsBatch(backend string) bool { return slices.Contains(batchBackends, backend) }

var batchBackends = []string{"openai-batch", "anthropic-batch"}

// Answer is what the store holds for one request of a step after the run.
type Answer struct {
	Key string // the request's key (Request.Key)
	// Response is the stored answer, or the stored final failure when
	// Response.Err is not "".
	Response
	// Stored is false when nothing is stored for the request: the run
	// stopped before it was answered, or a batch request still awaits its
	// provider's answer.
	Stored bool
}

// Step is one model path of the pipeline: a request built from each item,
// all of them run through the runner (cache, retries, rate limit, cost), the
// stored answer of each parsed into rows. Generation, the model judge and
// persona distillation are steps; so is any later path (a rubric writer, a
// rubric grader, a judge cascade): it brings its own Build and Parse and
// gets the cache, the retries, the cost accounting and the crash safety of
// Run without writing them again.
type Step[I, R any] struct {
	// Endpoint is where the requests go and what they cost.
	Endpoint Endpoint
	// Build makes the request of one item. Its error stops the step before
	// anything is sent: a request that cannot be built is a bug or bad
	// input, not a model failure.
	Build func(item I) (Request, error)
	// Parse turns the stored answer of one item into zero or more rows
	// (a generation, a label, a persona, the criteria of one rubric). It
	// is called for every item in order, also when the answer failed
	// (a.Err != "") or is missing (!a.Stored), so that the caller decides
	// whether such an item is a row with an error, a skipped item or a
	// failure. An error from Parse marks the item failed (StepResult.Failures)
	// and does not stop the step.
	Parse func(item I, a Answer) ([]R, error)
}

// StepOptions configures RunStep. The zero value is valid.
type StepOptions struct {
	// RetryFailed sends again the requests stored with a retryable failure
	// (for a batch backend: leaves them out of the answers, so that they go
	// into the next batch file).
	RetryFailed bool
	// Progress is the runner's progress callback (RunOptions.Progress);
	// nil means silent.
	Progress func(RunStats)
	// Client calls the endpoint; nil means NewOpenAI with the endpoint's
	// BaseURL, APIKeyEnv and Timeout. Tests inject a fake here.
	Client Backend
	// Clock is the runner's clock; nil means WallClock.
	Clock Clock
}

// StepResult is what RunStep did.
type StepResult[R any] struct {
	Rows     []R           // the rows of every item, in item order
	Requests []Request     // the request of each item, in item order
	Keys     []string      // the key of each request, in item order
	Stats    RunStats      // the runner's totals (for a batch backend: Requests and Cached)
	Failures []StepFailure // the items whose Parse returned an error, in item order
}

// StepFailure is an item that Parse refused.
type StepFailure struct {
	Index int    // the item's index in the items given to RunStep
	Key   string // its request's key
	Err   error
}

// RunStep runs one step over items: it builds every item's request, sends
// those without a final stored answer through Run to s.Endpoint (a batch
// endpoint is never called: its answers are read from the store), reads
// back the stored answer of every request, cached or new, and parses them
// in item order.
//
// The store is the content-addressed response cache (NewDuckStore for a
// workspace): a request answered in any earlier run, by any step, is not
// sent again. Costs are priced by Endpoint.Cost and stored with each answer.
//
// When ctx is done, RunStep parses what was stored (the unanswered items see
// Stored false) and returns the result with ctx's error, so that the caller
// can keep the finished part. Any other error of the runner (the endpoint
// refusing us, the store failing) is returned with the totals and no rows.
func RunStep[I, R any](ctx context.Context, store Store, items []I, s Step[I, R], opts StepOptions) (StepResult[R], error) {
	reqs := make([]Request, len(items))
	for i, it := range items {
		r, err := s.Build(it)
		if err != nil {
			return StepResult[R]{Requests: reqs[:i]}, err
		}
		reqs[i] = r
	}
	built := s
	next := 0
	built.Build = func(I) (Request, error) { // RunStepSeq builds in item order
		next++
		return reqs[next-1], nil
	}
	return RunStepSeq(ctx, store, func(yield func(I, error) bool) {
		for _, it := range items {
			if !yield(it, nil) {
				return
			}
		}
	}, built, opts)
}

// RunStepSeq is RunStep over items that are still being made: each item's
// request is built as it comes and sent through RunSeq while the rest are
// made, so the first call starts as soon as the first item is ready. items
// runs on the runner's reading goroutine (never concurrently with itself)
// and has ended when RunStepSeq returns; if it reads the workspace of a
// DuckStore, it reads through DuckStore.Do. An error from items or Build
// stops the step: nothing more is sent, the calls in flight are stored, and
// the error is returned with no rows. When ctx is done, the rest of items is
// still read, so that every item is parsed (the unsent ones see Stored
// false).
func RunStepSeq[I, R any](ctx context.Context, store Store, items iter.Seq2[I, error], s Step[I, R], opts StepOptions) (StepResult[R], error) {
	var res StepResult[R]
	var all []I
	reqs := func(yield func(Request, error) bool) {
		for it, err := range items {
			if err != nil {
				yield(Request{}, err)
				return
			}
			r, err := s.Build(it)
			if err != nil {
				yield(Request{}, err)
				return
			}
			all = append(all, it)
			res.Requests = append(res.Requests, r)
			res.Keys = append(res.Keys, r.Key())
			if !yield(r, nil) {
				return
			}
		}
	}

	var stored map[string]Response
	var runErr error
	if IsBatch(s.Endpoint.Backend) {
		for _, err := range reqs {
			if err != nil {
				return res, err
			}
		}
		var err error
		if stored, err = store.Get(ctx, res.Keys); err != nil {
			return res, err
		}
		if opts.RetryFailed {
			for k, r := range stored {
				if r.Err != "" && !r.Permanent {
					delete(stored, k) // goes out again in the next batch file
				}
			}
		}
		res.Stats = RunStats{Requests: len(all), Cached: len(stored)}
	} else {
		client := opts.Client
		if client == nil {
			if s.Endpoint.Backend != "openai" {
				return res, fmt.Errorf("backend %q has no live client", s.Endpoint.Backend)
			}
			client = NewOpenAI(OpenAIConfig{BaseURL: s.Endpoint.BaseURL, APIKeyEnv: s.Endpoint.APIKeyEnv, Timeout: s.Endpoint.Timeout})
		}
		ep := s.Endpoint
		res.Stats, runErr = RunSeq(ctx, reqs, client, store, RunOptions{
			Concurrency: ep.Concurrency, RatePerSecond: ep.RateLimit, MaxAttempts: ep.MaxAttempts,
			RetryFailed: opts.RetryFailed, Progress: opts.Progress, Clock: opts.Clock,
			Cost: func(_ Request, r Response) float64 { return ep.Cost(r.TokensIn, r.TokensOut, r.ViaBatch) },
		})
		if runErr != nil && !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, context.DeadlineExceeded) {
			return res, runErr
		}
		// Read back with a context that survives the cancellation: what
		// the run stored is kept.
		var err error
		if stored, err = store.Get(context.WithoutCancel(ctx), res.Keys); err != nil {
			return res, err
		}
	}
	for i, it := range all {
		resp, ok := stored[res.Keys[i]]
		rows, err := s.Parse(it, Answer{Key: res.Keys[i], Response: resp, Stored: ok})
		if err != nil {
			res.Failures = append(res.Failures, StepFailure{Index: i, Key: res.Keys[i], Err: err})
			continue
		}
		res.Rows = append(res.Rows, rows...)
	}
	return res, runErr
}
