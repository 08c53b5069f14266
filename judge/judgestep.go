package judge

import (
	"context"
	"fmt"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// JudgeStep is the model judge as a Step: one request per message
// (JudgeRequest: the versioned judge prompt, temperature 0), one label of
// kind ("point" or "generation") per stored answer, stored under judge
// name. An answer that does not parse is the label 'unparseable' with the
// raw answer; a request that failed or is unanswered is a failure, no
// label.
func JudgeStep(ep runner.Endpoint, model, name, kind string) runner.Step[queries.LabelTarget, queries.Label] {
	return runner.Step[queries.LabelTarget, queries.Label]{
		Endpoint: ep,
		Build: func(it queries.LabelTarget) (runner.Request, error) {
			return JudgeRequest(ep.BaseURL, model, it.Text, it.PrevAgent), nil
		},
		Parse: func(it queries.LabelTarget, a runner.Answer) ([]queries.Label, error) {
			if !a.Stored {
				return nil, fmt.Errorf("%s %s: no answer", kind, it.ID)
			}
			if a.Err != "" {
				return nil, fmt.Errorf("%s %s: %s", kind, it.ID, a.Err)
			}
			l := queries.Label{Target: kind, TargetID: it.ID, Judge: name, PromptVersion: PromptVersion(), RequestKey: a.Key, Raw: a.Text}
			mv, fine, perr := ParseAnswer(a.Text)
			if perr != nil {
				l.Move = "unparseable"
			} else {
				l.Move = mv.String()
				if fine != 0 {
					l.Label7 = fine.String()
				}
			}
			return []queries.Label{l}, nil
		},
	}
}

// JudgeRequest is the model judge's request for one developer message: the
// versioned judge prompt (PromptMessages) at temperature 0, at most 64
// tokens. `ub judge --model` and the cascade send it, so both share the
// cache.
func JudgeRequest(baseURL, model, text, prevAgent string) runner.Request {
	zero := 0.0
	return runner.Request{Backend: "openai", BaseURL: baseURL, Model: model,
		Params: runner.Params{Temperature: &zero, MaxTokens: 64}, Messages: PromptMessages(text, prevAgent)}
}

// ModelJudgeOptions configures JudgeWithModel. Judge, Model and Endpoint
// name the model judge.
type ModelJudgeOptions struct {
	Judge    string // the name the labels are stored under
	Model    string
	Endpoint runner.Endpoint
	Target   string // "points" or "generations" (Targets)
	// Preflight is called after the targets are loaded and before any
	// request is sent; its error is returned as it is. nil means none.
	Preflight func() error
	// RetryFailed, Progress and Client are those of StepOptions.
	RetryFailed bool
	Progress    func(runner.RunStats)
	Client      runner.Backend
	Clock       runner.Clock // the runner's clock (StepOptions); nil means WallClock
}

// ModelJudgeResult is what JudgeWithModel did.
type ModelJudgeResult struct {
	Kind   string          // "point" or "generation"
	Labels int             // labels stored
	Counts map[string]int  // labels of each move, and "unparseable"
	Stats  runner.RunStats // the runner's totals
	Failed int             // messages whose request failed: left unlabelled
}

// JudgeWithModel labels every point or generation with a model judge
// (JudgeStep) through the runner (cache, retries, rate limit, costs) and
// replaces that judge's labels of the target. A request that failed leaves
// its message unlabelled and is counted in ModelJudgeResult.Failed.
func JudgeWithModel(ctx context.Context, ws *queries.Workspace, opts ModelJudgeOptions) (ModelJudgeResult, error) {
	kind, items, err := Targets(ctx, ws.Conn(), opts.Target)
	if err != nil {
		return ModelJudgeResult{}, err
	}
	if opts.Preflight != nil {
		if err := opts.Preflight(); err != nil {
			return ModelJudgeResult{}, err
		}
	}
	res, err := runner.RunStep(ctx, runner.NewDuckStore(ws), items, JudgeStep(opts.Endpoint, opts.Model, opts.Judge, kind),
		runner.StepOptions{RetryFailed: opts.RetryFailed, Progress: opts.Progress, Client: opts.Client, Clock: opts.Clock})
	if err != nil {
		return ModelJudgeResult{}, fmt.Errorf("judge: %w", err)
	}
	out := ModelJudgeResult{Kind: kind, Labels: len(res.Rows), Counts: map[string]int{}, Stats: res.Stats, Failed: len(res.Failures)}
	for _, l := range res.Rows {
		out.Counts[l.Move]++
	}
	if err := queries.ReplaceLabels(ctx, ws, opts.Judge, kind, res.Rows); err != nil {
		return ModelJudgeResult{}, fmt.Errorf("judge: store: %w", err)
	}
	return out, nil
}

// CascadeJudgeOptions configures JudgeCascade. Judge, Model and Endpoint
// name the model judge.
type CascadeJudgeOptions struct {
	Judge    string // the model judge's name; labels are stored under CascadeName(Judge)
	Model    string
	Endpoint runner.Endpoint
	Target   string  // "points" or "generations" (Targets)
	Coverage float64 // CascadeOptions.Coverage
	// RetryFailed, Progress and Client are those of StepOptions; Client
	// nil means NewOpenAI with the endpoint's BaseURL, APIKeyEnv, Timeout.
	RetryFailed bool
	Progress    func(runner.RunStats)
	Client      runner.Backend
	Clock       runner.Clock // the runner's clock (StepOptions); nil means WallClock
}

// CascadeJudgeResult is what JudgeCascade did.
type CascadeJudgeResult struct {
	Kind   string // "point" or "generation"
	Judge  string // the name the labels are stored under
	Labels int    // labels stored
	Stats  CascadeStats
}

// JudgeCascade labels every point or generation with the built-in judge b
// and sends the least confident share 1-Coverage to the model judge
// (Cascade); the labels are stored under CascadeName(opts.Judge), each with
// the judge that decided it and the built-in judge's confidence. A message
// whose model request failed is left unlabelled (CascadeStats.Failed).
func JudgeCascade(ctx context.Context, ws *queries.Workspace, b *Builtin, opts CascadeJudgeOptions) (CascadeJudgeResult, error) {
	kind, targets, err := Targets(ctx, ws.Conn(), opts.Target)
	if err != nil {
		return CascadeJudgeResult{}, err
	}
	labels, st, err := Cascade(ctx, targets, kind, b, CascadeModel{Name: opts.Judge, Model: opts.Model, Endpoint: opts.Endpoint}, runner.NewDuckStore(ws),
		CascadeOptions{Coverage: opts.Coverage, Step: runner.StepOptions{RetryFailed: opts.RetryFailed, Progress: opts.Progress, Client: opts.Client, Clock: opts.Clock}})
	if err != nil {
		return CascadeJudgeResult{}, fmt.Errorf("judge: %w", err)
	}
	res := CascadeJudgeResult{Kind: kind, Judge: CascadeName(opts.Judge), Labels: len(labels), Stats: st}
	if err := queries.ReplaceLabels(ctx, ws, res.Judge, kind, labels); err != nil {
		return CascadeJudgeResult{}, fmt.Errorf("judge: store: %w", err)
	}
	return res, nil
}
