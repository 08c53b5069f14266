package rubric

import (
	"context"
	"errors"
	"fmt"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// ChatRequest is the request of a model path that asks a model msgs at
// temperature 0 with at most maxTokens answer tokens (the grader, the
// rubric writer and its verifier).
func ChatRequest(ep runner.Endpoint, model string, msgs []runner.Message, maxTokens int) runner.Request {
	zero := 0.0
	return runner.Request{Backend: "openai", BaseURL: ep.BaseURL, Model: model, Params: runner.Params{Temperature: &zero, MaxTokens: maxTokens}, Messages: msgs}
}

// errNoAnswer is the failure of an item whose request failed or is
// unanswered: the item gets no row.
var errNoAnswer = errors.New("no answer")

// ErrNoCriteria is returned by Grade when no episode has a criterion of its
// task: the rubrics are a step to take first.
var ErrNoCriteria = errors.New("no episode has a criterion of its task")

// answerText is the text of a stored answer, or errNoAnswer.
func answerText(a runner.Answer) (string, error) {
	if !a.Stored || a.Err != "" {
		return "", errNoAnswer
	}
	return a.Text, nil
}

// GradeOptions configures Grade. The zero value grades every domain as
// grader "model:" (set Model and Endpoint to call a model).
type GradeOptions struct {
	Grader   string // the verdicts' grader name; "" means "model:"+Model
	Domain   string // grade only this domain's episodes; "" means all
	Model    string // the grader model at Endpoint
	Endpoint runner.Endpoint
	Step     runner.StepOptions
}

// GradeResult is what Grade did.
type GradeResult struct {
	Grader   string
	Items    int             // (episode, criterion) pairs
	Verdicts int             // verdicts stored
	Failed   int             // pairs whose request failed or is unanswered: not graded
	Stats    runner.RunStats // the runner's totals
	// Counts is the number of answers per verdict ("pass", "fail", "na")
	// and "unparseable" (answers that are not a verdict: not stored, their
	// raw text stays in the response cache).
	Counts map[string]int
}

// Grade grades every (episode, criterion) of the workspace with a model,
// one criterion per request, blind to the simulator (GradeMessages),
// through RunStep (cache, retries, rate limit, cost: nothing answered is
// paid twice), and stores the verdicts. A workspace with nothing to grade
// is an error.
func Grade(ctx context.Context, ws *queries.Workspace, opts GradeOptions) (GradeResult, error) {
	res := GradeResult{Grader: opts.Grader, Counts: map[string]int{}}
	if res.Grader == "" {
		res.Grader = "model:" + opts.Model
	}
	rows, items, err := LoadGradeItems(ctx, ws.Conn(), opts.Domain)
	if err != nil {
		return res, err
	}
	if len(items) == 0 {
		return res, fmt.Errorf("grade: %w (ingest episodes, then ub rubrics import)", ErrNoCriteria)
	}
	res.Items = len(items)
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	step := runner.Step[int, queries.StoredVerdict]{
		Endpoint: opts.Endpoint,
		Build: func(i int) (runner.Request, error) {
			return ChatRequest(opts.Endpoint, opts.Model, GradeMessages(items[i]), 300), nil
		},
		Parse: func(i int, a runner.Answer) ([]queries.StoredVerdict, error) {
			text, err := answerText(a)
			if err != nil {
				return nil, err
			}
			v, turn, reason, perr := ParseGrade(text)
			if perr != nil {
				res.Counts["unparseable"]++
				return nil, nil
			}
			res.Counts[v]++
			return []queries.StoredVerdict{{SimulationID: rows[i].SimulationID, CriterionID: rows[i].CriterionID, Grader: res.Grader,
				Verdict: v, TurnIdx: turn, Reason: reason, PromptVersion: GradePromptVersion(), RequestKey: a.Key,
				SourceFile: "grade:" + opts.Model, SourceLine: i + 1}}, nil
		},
	}
	sr, err := runner.RunStep(ctx, runner.NewDuckStore(ws), idx, step, opts.Step)
	res.Stats = sr.Stats
	if err != nil {
		return res, fmt.Errorf("grade: %w", err)
	}
	res.Failed, res.Verdicts = len(sr.Failures), len(sr.Rows)
	if err := queries.PutVerdicts(ctx, ws, sr.Rows); err != nil {
		return res, fmt.Errorf("grade: store: %w", err)
	}
	return res, nil
}

// RubricWriteOptions configures WriteRubrics. The zero value writes every
// domain's rubrics without sample episodes (set the models and endpoints to
// call them).
type RubricWriteOptions struct {
	Domain                     string // write only this domain's tasks; "" means all
	Sample                     bool   // show the writer one sample episode of the task
	WriterModel, VerifierModel string
	Writer, Verifier           runner.Endpoint
	// Step is passed to both RunStep calls, its Progress replaced by
	// Progress's.
	Step runner.StepOptions
	// Progress starts the progress of a stage ("rubrics write", then
	// "rubrics verify"): the runner's callback and a function called when
	// the stage ends. Nil means silent.
	Progress func(stage string) (func(runner.RunStats), func())
}

// RubricWriteResult is what WriteRubrics did.
type RubricWriteResult struct {
	Tasks, Accepted, Rejected int
	Writer, Verifier          runner.RunStats // the runners' totals
	// WriterFailed and VerifierFailed count the requests that failed or are
	// unanswered; Unparseable the writer's answers that are not a rubric.
	WriterFailed, VerifierFailed, Unparseable int
}

// WriteRubrics writes every task's rubric with the writer model (versioned
// writer prompt), applies the import's checks to each criterion, sends the
// criteria that pass to the verifier model (versioned verifier prompt) and
// stores every criterion, accepted or rejected with the reason. Both go
// through RunStep (cache, retries, cost). A workspace without tasks is an
// error.
func WriteRubrics(ctx context.Context, ws *queries.Workspace, opts RubricWriteOptions) (RubricWriteResult, error) {
	var res RubricWriteResult
	inputs, err := LoadWriterInputs(ctx, ws.Conn(), opts.Domain, opts.Sample)
	if err != nil {
		return res, err
	}
	if len(inputs) == 0 {
		return res, fmt.Errorf("rubrics write: no tasks in the workspace (ingest result files first)")
	}
	res.Tasks = len(inputs)
	sources, err := LoadQuoteSources(ctx, ws.Conn())
	if err != nil {
		return res, err
	}
	store := runner.NewDuckStore(ws)
	run := func(stage string, items []pendingRubric, s runner.Step[pendingRubric, pendingRubric]) ([]pendingRubric, runner.RunStats, error) {
		so := opts.Step
		done := func() {}
		if opts.Progress != nil {
			so.Progress, done = opts.Progress(stage)
		}
		sr, err := runner.RunStep(ctx, store, items, s, so)
		done()
		return sr.Rows, sr.Stats, err
	}

	// The writer: one request per task.
	tasks := make([]pendingRubric, len(inputs))
	for i := range inputs {
		tasks[i].task = i
	}
	written, wst, err := run("rubrics write", tasks, runner.Step[pendingRubric, pendingRubric]{
		Endpoint: opts.Writer,
		Build: func(p pendingRubric) (runner.Request, error) {
			return ChatRequest(opts.Writer, opts.WriterModel, WriterMessages(inputs[p.task]), 2000), nil
		},
		Parse: func(p pendingRubric, a runner.Answer) ([]pendingRubric, error) {
			text, err := answerText(a)
			if err != nil {
				res.WriterFailed++
				return nil, nil
			}
			if text == "" {
				return nil, nil
			}
			in := inputs[p.task]
			if p.cs, err = ParseWriterAnswer(text, in.Domain, in.TaskID); err != nil {
				res.Unparseable++
				return nil, nil
			}
			return []pendingRubric{p}, nil
		},
	})
	res.Writer = wst
	if err != nil {
		return res, fmt.Errorf("rubrics write: %w", err)
	}
	version := WriterPromptVersion() + " " + VerifierPromptVersion()
	row := func(c Criterion, status, reason string) queries.Criterion {
		return queries.Criterion{CriterionID: c.CriterionID, Domain: c.Domain, TaskID: c.TaskID, Family: c.Family, Mode: c.Mode,
			Quote: c.Quote, QuoteSource: c.QuoteSource, Text: c.Text, AppliesWhen: c.AppliesWhen, WrittenBy: opts.WriterModel,
			VerifiedBy: opts.VerifierModel, Status: status, RejectReason: reason, PromptVersion: version, SourceFile: "rubrics write"}
	}
	var rows []queries.Criterion
	var toVerify []pendingRubric
	for _, p := range written {
		var ok []Criterion
		for _, cr := range p.cs {
			if why := CheckWritten(cr, sources); why != "" {
				r := row(cr, "rejected", "writer check: "+why)
				r.VerifiedBy = "" // refused before the verifier saw it
				rows = append(rows, r)
				continue
			}
			ok = append(ok, cr)
		}
		if len(ok) > 0 {
			toVerify = append(toVerify, pendingRubric{p.task, ok, ""})
		}
	}

	// The verifier: one request per task with criteria that passed.
	verified, vst, err := run("rubrics verify", toVerify, runner.Step[pendingRubric, pendingRubric]{
		Endpoint: opts.Verifier,
		Build: func(p pendingRubric) (runner.Request, error) {
			return ChatRequest(opts.Verifier, opts.VerifierModel, VerifierMessages(inputs[p.task], p.cs), 2000), nil
		},
		Parse: func(p pendingRubric, a runner.Answer) ([]pendingRubric, error) {
			text, err := answerText(a)
			if err != nil {
				res.VerifierFailed++
			}
			p.answer = text
			return []pendingRubric{p}, nil
		},
	})
	res.Verifier = vst
	if err != nil {
		return res, fmt.Errorf("rubrics write: verify: %w", err)
	}
	for _, p := range verified {
		rows = append(rows, verdictRows(p, row)...)
	}
	for _, r := range rows {
		if r.Status == "accepted" {
			res.Accepted++
		} else {
			res.Rejected++
		}
	}
	if err := queries.PutCriteria(ctx, ws, rows); err != nil {
		return res, fmt.Errorf("rubrics write: store: %w", err)
	}
	return res, nil
}

// pendingRubric is one task's criteria on their way through the writer
// and the verifier: the task's index, its criteria, the verifier's answer
// ("" when its request failed).
type pendingRubric struct {
	task   int
	cs     []Criterion
	answer string
}

// verdictRows decides p's criteria by the verifier's answer: accepted when
// it keeps them, else rejected with the reason (a failed request or an
// unparseable answer rejects all of them).
func verdictRows(p pendingRubric, row func(c Criterion, status, reason string) queries.Criterion) []queries.Criterion {
	ids := make([]string, len(p.cs))
	for k, cr := range p.cs {
		ids[k] = cr.CriterionID
	}
	var dec map[string]Decision
	reason := ""
	if p.answer == "" {
		reason = "verifier: the request failed"
	} else {
		var perr error
		if dec, perr = ParseVerifierAnswer(p.answer, ids); perr != nil {
			reason = "verifier: unparseable answer: " + perr.Error()
		}
	}
	var rows []queries.Criterion
	for _, cr := range p.cs {
		d, ok := dec[cr.CriterionID]
		switch {
		case reason != "":
			rows = append(rows, row(cr, "rejected", reason))
		case !ok:
			rows = append(rows, row(cr, "rejected", "verifier gave no decision"))
		case !d.Keep:
			rows = append(rows, row(cr, "rejected", "verifier: "+d.Reason))
		default:
			rows = append(rows, row(cr, "accepted", ""))
		}
	}
	return rows
}
