package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/runner"
)

// SimSummary is what one simulator's part of a run did.
type SimSummary struct {
	Simulator   string  `json:"simulator"`
	Generations int     `json:"generations"` // in the experiment for this simulator
	Written     int     `json:"written"`     // generations written or rewritten by this run
	Unchanged   int     `json:"unchanged"`   // already stored with the same request key
	Sent        int     `json:"sent"`        // requests sent to the endpoint
	Cached      int     `json:"cached"`      // requests served from the response cache
	Failed      int     `json:"failed"`      // generations recorded with an error
	Awaiting    int     `json:"awaiting"`    // batch simulators: requests with no answer yet (written to batch files with --batch-write)
	TokensIn    int64   `json:"tokens_in"`
	TokensOut   int64   `json:"tokens_out"`
	Cost        float64 `json:"cost"`
}

// GenerateOptions configures Generate. The zero value is valid.
type GenerateOptions struct {
	// Persona is the persona kind of the profile condition (InputsOptions).
	Persona string
	// RetryFailed sends again the requests that failed after all retries.
	RetryFailed bool
	// Preflight is called before a live model simulator sends its first
	// request; its error stops the run. nil means none.
	Preflight func(s SimulatorConfig) error
	// Progress starts the progress report of a live model simulator's
	// requests: it returns the runner's callback and a function called when
	// the run ends. nil means silent.
	Progress func(simulator string) (update func(runner.RunStats), finish func())
	// Awaiting receives the requests a batch simulator still waits for
	// (to write them as provider batch files); its error stops the run.
	// nil means they are only counted (SimSummary.Awaiting).
	Awaiting func(s SimulatorConfig, reqs []runner.Request) error
	// Done is called with each simulator's summary when its generations
	// are stored; nil means none.
	Done func(s SimulatorConfig, sum SimSummary)
	// Client calls the live endpoints; nil means NewOpenAI (StepOptions).
	Client runner.Backend
	// Clock is the runner's clock (StepOptions); nil means WallClock.
	Clock runner.Clock
}

// GenerateResult is what Generate did.
type GenerateResult struct {
	Points     int          // frozen points
	Simulators []SimSummary // in the experiment's order
}

// Generate makes every generation of experiment e that is missing from the
// workspace or whose request changed: for each simulator, in order, every
// frozen point under every cell (Experiment.Cells). Offline simulators
// write at once; model simulators run through RunStep (response cache,
// retries, costs); batch simulators take their answers from imported batch
// files. A generation already stored with the same request key and no
// error is left as it is.
//
// When ctx is done, the answers that came are stored, the rest recorded as
// unanswered, and ctx's error is returned.
func Generate(ctx context.Context, ws *queries.Workspace, e Experiment, opts GenerateOptions) (GenerateResult, error) {
	var res GenerateResult
	points, err := queries.Points(ctx, ws.Conn())
	if err != nil {
		return res, err
	}
	res.Points = len(points)
	if len(points) == 0 {
		return res, fmt.Errorf("generate: no frozen points (run ub split and ub points): %w", queries.ErrNoSplit)
	}
	g := &generator{ctx: ctx, ws: ws, e: e, opts: opts, points: points,
		in: NewInputs(ws.Conn(), InputsOptions{PersonaKind: opts.Persona}), contexts: map[string]queries.PointData{}}
	for _, s := range e.Simulators {
		sum, err := g.simulator(s)
		if err != nil {
			return res, fmt.Errorf("generate: %s: %w", s.Name, err)
		}
		if opts.Done != nil {
			opts.Done(s, sum)
		}
		res.Simulators = append(res.Simulators, sum)
	}
	return res, nil
}

// Generation is one generation of a simulator at a point under a cell,
// ready to run: its request (the exact prompt of a model backend, or the
// offline simulator's input) and, for an offline simulator, its output.
type Generation struct {
	ID      string
	Cell    Cell
	Trial   int // the sample index, 0 .. k-1 (Experiment.Trials)
	Point   queries.PointRow
	Request runner.Request
	Parts   runner.KeyParts // what the request key is made of (ExplainMiss)
	Version string          // the prompt template's version, or the offline simulator's
	Text    string          // offline simulators: the output
	Err     string          // offline simulators: why there is no output
}

// PrepareGeneration builds the generation of simulator s at the frozen
// point pointID under cell in trial (0 for the first), as Generate would
// send or write it now.
func PrepareGeneration(ctx context.Context, db queries.Querier, s SimulatorConfig, cell Cell, pointID string, trial int, opts InputsOptions) (Generation, error) {
	pd, err := queries.PointContext(ctx, db, pointID)
	if err != nil {
		return Generation{}, fmt.Errorf("point %s: %w", pointID, err)
	}
	j := &job{Generation: Generation{ID: GenerationID(s.Name, pointID, cell.Condition, cell.WindowN, cell.HistoryK, trial),
		Cell: cell, Trial: trial, Point: pd.Point}}
	err = prepare(ctx, NewInputs(db, opts), s, pd, j, map[string]TemplateRecord{})
	return j.Generation, err
}

type generator struct {
	ctx      context.Context
	ws       *queries.Workspace
	e        Experiment
	opts     GenerateOptions
	points   []queries.PointRow
	in       *Inputs
	contexts map[string]queries.PointData
	index    map[string]int // point id -> its place in points, made on first use
}

// pointsReadAhead is how many points' contexts the generator reads at once.
const pointsReadAhead = 256

func (g *generator) pointData(ctx context.Context, id string) (queries.PointData, error) {
	if pd, ok := g.contexts[id]; ok {
		return pd, nil
	}
	// Read ahead: this point and the next ones not read yet, in one
	// batch (a point's turns are found by a scan of the turns either way).
	if g.index == nil {
		g.index = make(map[string]int, len(g.points))
		for i, p := range g.points {
			g.index[p.ID] = i
		}
	}
	if i, ok := g.index[id]; ok {
		var ids []string
		for _, p := range g.points[i:] {
			if len(ids) == pointsReadAhead {
				break
			}
			if _, ok := g.contexts[p.ID]; !ok {
				ids = append(ids, p.ID)
			}
		}
		batch, err := queries.PointContextsOf(ctx, g.ws.Conn(), ids)
		if err != nil {
			return queries.PointData{}, err
		}
		for id, pd := range batch {
			g.contexts[id] = *pd
		}
		if pd, ok := g.contexts[id]; ok {
			return pd, nil
		}
	}
	// Not read in a batch (PointContextsOf leaves out a point it would
	// refuse): read alone, for its error.
	pd, err := queries.PointContext(ctx, g.ws.Conn(), id)
	if err != nil {
		return pd, fmt.Errorf("point %s: %w", id, err)
	}
	g.contexts[id] = pd
	return pd, nil
}

// job is one generation to make.
type job struct {
	Generation
	key string // Request.Key(), computed once: it hashes the whole prompt
}

// simulator makes every generation of one simulator that is missing or
// whose request changed, through the runner for model backends.
func (g *generator) simulator(s SimulatorConfig) (sum SimSummary, retErr error) {
	sum = SimSummary{Simulator: s.Name}
	params, _ := json.Marshal(s.Params())
	if err := queries.StoreSimulator(g.ctx, g.ws.Conn(), queries.SimulatorRow{Name: s.Name, Backend: s.Backend, Model: s.Model,
		Params: params, PriceIn: s.PriceIn, PriceOut: s.PriceOut, BatchDiscount: s.BatchDiscount}); err != nil {
		return sum, err
	}
	existing, err := queries.ExistingGenerations(g.ctx, g.ws.Conn(), s.Name)
	if err != nil {
		return sum, err
	}
	// The jobs are built as they are sent (a point's context is a query):
	// on the workspace through the store while the runner writes to it,
	// and to the end even when the run is stopped, so that every
	// generation not answered is recorded as such.
	live := !IsOffline(s.Backend) && !runner.IsBatch(s.Backend)
	store := runner.NewDuckStore(g.ws)
	hold := func(fn func() error) error { return fn() }
	if !IsOffline(s.Backend) {
		hold = store.Do
	}
	var bar func(runner.RunStats)
	var barMu sync.Mutex
	done := func() {}
	started := false
	todo := g.jobs(context.WithoutCancel(g.ctx), s, existing, hold, &sum, func() error {
		if started || !live {
			return nil
		}
		// The first generation to make: what was checked before the run
		// is checked now (a run with nothing to make needs no key).
		started = true
		if g.opts.Preflight != nil {
			if err := g.opts.Preflight(s); err != nil {
				return err
			}
		}
		if g.opts.Progress != nil {
			barMu.Lock()
			bar, done = g.opts.Progress(s.Name)
			barMu.Unlock()
		}
		return nil
	})
	var awaiting []runner.Request
	step := runner.Step[*job, queries.GenerationRow]{
		Endpoint: s.Endpoint(),
		Build:    func(j *job) (runner.Request, error) { return j.Request, nil },
		Parse: func(j *job, a runner.Answer) ([]queries.GenerationRow, error) {
			row := g.row(s, j)
			switch {
			case IsOffline(s.Backend):
				row.Text, row.Error = j.Text, j.Err
			case !a.Stored && runner.IsBatch(s.Backend):
				awaiting = append(awaiting, j.Request)
				return nil, nil // awaits its batch result: no generation yet
			case !a.Stored:
				row.Error = "no answer (the run stopped before this request was answered)"
			case a.Err != "":
				row.Error = a.Err
			default:
				row.Text, row.TokensIn, row.TokensOut, row.LatencyMS = a.Text, a.TokensIn, a.TokensOut, a.LatencyMS
				row.Cost = s.Cost(a.TokensIn, a.TokensOut, a.ViaBatch)
				sum.TokensIn += int64(a.TokensIn)
				sum.TokensOut += int64(a.TokensOut)
				sum.Cost += row.Cost
			}
			if row.Error != "" {
				sum.Failed++
			}
			return []queries.GenerationRow{row}, nil
		},
	}
	var rows []queries.GenerationRow
	if IsOffline(s.Backend) {
		for j, err := range todo {
			if err != nil {
				return sum, err
			}
			r, _ := step.Parse(j, runner.Answer{})
			rows = append(rows, r...)
		}
	} else {
		progress := func(st runner.RunStats) {
			barMu.Lock()
			b := bar
			barMu.Unlock()
			if b != nil {
				b(st)
			}
		}
		res, err := runner.RunStepSeq(g.ctx, store, todo, step, runner.StepOptions{RetryFailed: g.opts.RetryFailed, Progress: progress, Client: g.opts.Client, Clock: g.opts.Clock})
		done()
		if err != nil && !errors.Is(err, context.Canceled) {
			return sum, err
		}
		// Interrupted: the answers that came are written below, the rest
		// is recorded as not answered; the cancellation is returned after.
		defer func() {
			if err != nil && retErr == nil {
				retErr = err
			}
		}()
		sum.Sent, sum.Cached = res.Stats.Sent, res.Stats.Cached
		rows = res.Rows
		sum.Awaiting = len(awaiting)
		if len(awaiting) > 0 && g.opts.Awaiting != nil {
			if err := g.opts.Awaiting(s, awaiting); err != nil {
				return sum, err
			}
		}
	}
	// Written counts what was committed: a failed commit writes nothing
	// (the answers stay in the response cache; a re-run sends nothing).
	if err := queries.ReplaceGenerations(g.ctx, g.ws, rows); err != nil {
		return sum, fmt.Errorf("store generations: %w", err)
	}
	sum.Written = len(rows)
	return sum, nil
}

// jobs yields, in cell and point order, the jobs of simulator s that are
// missing or whose request changed, each built when it is asked for (inside
// hold, which owns the workspace meanwhile) and its new prompt template
// stored; it counts every job in sum.Generations and those stored with the
// same request key in sum.Unchanged. first is called before the first job
// is yielded; its error ends the sequence.
func (g *generator) jobs(ctx context.Context, s SimulatorConfig, existing map[string]queries.ExistingGeneration,
	hold func(func() error) error, sum *SimSummary, first func() error) iter.Seq2[*job, error] {
	return func(yield func(*job, error) bool) {
		templates := map[string]TemplateRecord{}
		for _, cell := range g.e.Cells() {
			if cell.Simulator != s.Name {
				continue
			}
			for _, p := range g.points {
				for t := range g.e.TrialCount() {
					j := &job{Generation: Generation{ID: GenerationID(s.Name, p.ID, cell.Condition, cell.WindowN, cell.HistoryK, t), Cell: cell, Trial: t, Point: p}}
					err := hold(func() error {
						pd, err := g.pointData(ctx, p.ID)
						if err != nil {
							return err
						}
						n := len(templates)
						if err := prepare(ctx, g.in, s, pd, j, templates); err != nil {
							return err
						}
						if len(templates) > n {
							t := templates[j.Version]
							return queries.StorePromptTemplate(ctx, g.ws.Conn(), t.Version, t.Name, t.Text)
						}
						return nil
					})
					if err != nil {
						yield(nil, err)
						return
					}
					j.key = j.Request.Key()
					sum.Generations++
					// What is stored with the same request key and text stays as it is.
					if ex, ok := existing[j.ID]; ok && ex.RequestKey == j.key && ex.OK {
						sum.Unchanged++
						continue
					}
					if err := first(); err != nil {
						yield(nil, err)
						return
					}
					if !yield(j, nil) {
						return
					}
				}
			}
		}
	}
}

// row is the generation row of a job, without its answer.
func (g *generator) row(s SimulatorConfig, j *job) queries.GenerationRow {
	parts, _ := json.Marshal(j.Parts)
	return queries.GenerationRow{ID: j.ID, PointID: j.Point.ID, Simulator: s.Name, Condition: j.Cell.Condition,
		WindowN: j.Cell.WindowN, HistoryK: j.Cell.HistoryK, RequestKey: j.key, KeyParts: parts,
		PromptVersion: j.Version, Experiment: g.e.Name, Trial: j.Trial}
}

// prepare builds a job's request at point pd: the exact prompt for a model
// backend (its template recorded in templates), or the offline simulator's
// input and output.
func prepare(ctx context.Context, in *Inputs, s SimulatorConfig, pd queries.PointData, j *job, templates map[string]TemplateRecord) error {
	if IsOffline(s.Backend) {
		oin, err := in.Offline(ctx, pd, j.Cell.Condition, j.Cell.WindowN, j.Cell.HistoryK)
		if err != nil {
			j.Err = err.Error()
			j.Request = runner.Request{Backend: s.Backend, Model: s.Backend, Messages: []runner.Message{{Role: "user", Content: j.Point.ID + "\x00" + j.Cell.Condition}},
				Sample: j.Trial}
			j.Parts = j.Request.Parts()
			return nil
		}
		o, err := NewOffline(s.Backend, s.Seed)
		if err != nil {
			return err
		}
		oin.Sample = j.Trial
		j.Request = OfflineRequest(s.Backend, s.Seed, oin)
		j.Parts = j.Request.Parts()
		j.Version = j.Request.Model
		if j.Text, err = o.Generate(oin); err != nil {
			j.Err = err.Error()
		}
		return nil
	}
	pin, err := in.Prompt(ctx, pd, j.Cell.Condition, j.Cell.HistoryK)
	if err != nil {
		return err
	}
	popts := PromptOptions{Condition: j.Cell.Condition, Window: j.Cell.WindowN, History: j.Cell.HistoryK}
	msgs, ver, err := Build(pin, popts)
	if err != nil {
		return fmt.Errorf("point %s: %w", j.Point.ID, err)
	}
	if _, ok := templates[ver]; !ok {
		t, err := PromptTemplate(popts)
		if err != nil {
			return err
		}
		templates[ver] = t
	}
	// An OpenAI batch answer and a live answer of the same request are
	// interchangeable: both are keyed as openai requests.
	backend := s.Backend
	if backend == "openai-batch" {
		backend = "openai"
	}
	j.Request = runner.Request{Backend: backend, BaseURL: s.BaseURL, Model: s.Model, Params: s.Params(), Messages: msgs, Sample: j.Trial}
	j.Version = ver
	j.Parts = j.Request.Parts()
	j.Parts.Template = ver
	return nil
}
