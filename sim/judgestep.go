package sim

import (
	"context"
	"fmt"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
)

// JudgeStep is the model judge as a Step: one request per message
// (JudgeRequest: the versioned judge prompt, temperature 0), one label of
// kind ("point" or "generation") per stored answer, stored under judge
// name. An answer that does not parse is the label 'unparseable' with the
// raw answer; a request that failed or is unanswered is a failure, no
// label.
func JudgeStep(ep Endpoint, model, name, kind string) Step[queries.LabelTarget, queries.Label] {
	return Step[queries.LabelTarget, queries.Label]{
		Endpoint: ep,
		Build: func(it queries.LabelTarget) (Request, error) {
			return JudgeRequest(ep.BaseURL, model, it.Text, it.PrevAgent), nil
		},
		Parse: func(it queries.LabelTarget, a Answer) ([]queries.Label, error) {
			if !a.Stored {
				return nil, fmt.Errorf("%s %s: no answer", kind, it.ID)
			}
			if a.Err != "" {
				return nil, fmt.Errorf("%s %s: %s", kind, it.ID, a.Err)
			}
			l := queries.Label{Target: kind, TargetID: it.ID, Judge: name, PromptVersion: judge.PromptVersion(), RequestKey: a.Key, Raw: a.Text}
			mv, fine, perr := judge.ParseAnswer(a.Text)
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

// ModelJudgeOptions configures JudgeWithModel. Judge, Model and Endpoint
// name the model judge.
type ModelJudgeOptions struct {
	Judge    string // the name the labels are stored under
	Model    string
	Endpoint Endpoint
	Target   string // "points" or "generations" (judge.Targets)
	// Preflight is called after the targets are loaded and before any
	// request is sent; its error is returned as it is. nil means none.
	Preflight func() error
	// RetryFailed, Progress and Client are those of StepOptions.
	RetryFailed bool
	Progress    func(RunStats)
	Client      Backend
	Clock       Clock // the runner's clock (StepOptions); nil means WallClock
}

// ModelJudgeResult is what JudgeWithModel did.
type ModelJudgeResult struct {
	Kind   string         // "point" or "generation"
	Labels int            // labels stored
	Counts map[string]int // labels of each move, and "unparseable"
	Stats  RunStats       // the runner's totals
	Failed int            // messages whose request failed: left unlabelled
}

// JudgeWithModel labels every point or generation with a model judge
// (JudgeStep) through the runner (cache, retries, rate limit, costs) and
// replaces that judge's labels of the target. A request that failed leaves
// its message unlabelled and is counted in ModelJudgeResult.Failed.
func JudgeWithModel(ctx context.Context, ws *queries.Workspace, opts ModelJudgeOptions) (ModelJudgeResult, error) {
	kind, items, err := judge.Targets(ctx, ws.Conn(), opts.Target)
	if err != nil {
		return ModelJudgeResult{}, err
	}
	if opts.Preflight != nil {
		if err := opts.Preflight(); err != nil {
			return ModelJudgeResult{}, err
		}
	}
	res, err := RunStep(ctx, NewDuckStore(ws), items, JudgeStep(opts.Endpoint, opts.Model, opts.Judge, kind),
		StepOptions{RetryFailed: opts.RetryFailed, Progress: opts.Progress, Client: opts.Client, Clock: opts.Clock})
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
	Endpoint Endpoint
	Target   string  // "points" or "generations" (judge.Targets)
	Coverage float64 // CascadeOptions.Coverage
	// RetryFailed, Progress and Client are those of StepOptions; Client
	// nil means NewOpenAI with the endpoint's BaseURL, APIKeyEnv, Timeout.
	RetryFailed bool
	Progress    func(RunStats)
	Client      Backend
	Clock       Clock // the runner's clock (RunOptions); nil means WallClock
}

// CascadeJudgeResult is what JudgeCascade did.
type CascadeJudgeResult struct {
	Kind   string // "point" or "generation"
	Judge  string // the name the labels are stored under
	Labels int    // labels stored
	Stats  CascadeStats
}

// CascadeName is the judge name a cascade's labels are stored under: the
// built-in judge, then the model judge.
func CascadeName(model string) string { return judge.BuiltinName + "+" + model }

// JudgeCascade labels every point or generation with the built-in judge b
// and sends the least confident share 1-Coverage to the model judge
// (Cascade); the labels are stored under CascadeName(opts.Judge), each with
// the judge that decided it and the built-in judge's confidence. A message
// whose model request failed is left unlabelled (CascadeStats.Failed).
func JudgeCascade(ctx context.Context, ws *queries.Workspace, b *judge.Builtin, opts CascadeJudgeOptions) (CascadeJudgeResult, error) {
	kind, targets, err := judge.Targets(ctx, ws.Conn(), opts.Target)
	if err != nil {
		return CascadeJudgeResult{}, err
	}
	items := make([]CascadeItem, len(targets))
	for i, t := range targets {
		items[i] = CascadeItem{ID: t.ID, Text: t.Text, PrevAgent: t.PrevAgent}
	}
	ep := opts.Endpoint
	client := opts.Client
	if client == nil {
		client = NewOpenAI(OpenAIConfig{BaseURL: ep.BaseURL, APIKeyEnv: ep.APIKeyEnv, Timeout: ep.Timeout})
	}
	labels, st, err := Cascade(ctx, items, b, CascadeModel{Name: opts.Judge, BaseURL: ep.BaseURL, Model: opts.Model}, client, NewDuckStore(ws),
		CascadeOptions{Coverage: opts.Coverage, Run: RunOptions{Concurrency: ep.Concurrency, RatePerSecond: ep.RateLimit,
			MaxAttempts: ep.MaxAttempts, RetryFailed: opts.RetryFailed,
			Cost:     func(_ Request, r Response) float64 { return ep.Cost(r.TokensIn, r.TokensOut, r.ViaBatch) },
			Progress: opts.Progress, Clock: opts.Clock}})
	if err != nil {
		return CascadeJudgeResult{}, fmt.Errorf("judge: %w", err)
	}
	res := CascadeJudgeResult{Kind: kind, Judge: CascadeName(opts.Judge), Stats: st}
	var rows []queries.Label
	for _, l := range labels {
		if l.Failed != "" {
			continue
		}
		row := queries.Label{Target: kind, TargetID: l.ID, Judge: res.Judge, Move: l.Move.String(), Raw: l.Raw,
			RequestKey: l.RequestKey, Confidence: l.Confidence, DecidedBy: l.DecidedBy, PromptVersion: b.Version()}
		if l.DecidedBy != judge.BuiltinName {
			row.PromptVersion = judge.PromptVersion()
		}
		if l.Unparseable {
			row.Move = "unparseable"
		}
		if l.Fine != 0 {
			row.Label7 = l.Fine.String()
		}
		rows = append(rows, row)
	}
	if err := queries.ReplaceLabels(ctx, ws, res.Judge, kind, rows); err != nil {
		return CascadeJudgeResult{}, fmt.Errorf("judge: store: %w", err)
	}
	res.Labels = len(rows)
	return res, nil
}
