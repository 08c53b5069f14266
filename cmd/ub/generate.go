package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

type generateOptions struct {
	experiment  string
	sims        []string
	conditions  []string
	window      int
	history     int
	seed        int64
	retryFailed bool
	persona     string
	json        bool
	batchDir    string
}

func newGenerateCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "generate",
		Usage: "make every missing generation of an experiment (simulators x frozen points x conditions x sweeps), nothing twice",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "experiment", Usage: "experiment TOML `FILE` (simulators, prices, limits, conditions, sweeps)"},
			&cli.StringFlag{Name: "sim", Usage: "without --experiment: built-in simulators, comma-separated (mix,retrieve)"},
			&cli.StringFlag{Name: "conditions", Value: "profile,noprofile", Usage: "without --experiment: profile,noprofile,terse"},
			&cli.IntFlag{Name: "window", Value: sim.DefaultWindow, Usage: "without --experiment: turns before the moment (N)"},
			&cli.IntFlag{Name: "history", Value: 0, Usage: "without --experiment: earlier-session messages (K)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "without --experiment: seed of the offline simulators"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "send again the requests that failed after all retries (permanent errors stay)"},
			&cli.StringFlag{Name: "persona", Value: "stats", Usage: "persona of the profile condition: stats|model"},
			&cli.BoolFlag{Name: "json", Usage: "print the summary as JSON"},
			&cli.StringFlag{Name: "batch-write", Usage: "write the unanswered requests of batch simulators (openai-batch, anthropic-batch) as provider batch files into `DIR`"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			opts := generateOptions{experiment: c.String("experiment"), window: c.Int("window"), history: c.Int("history"),
				seed: c.Int64("seed"), retryFailed: c.Bool("retry-failed"), persona: c.String("persona"), json: c.Bool("json"),
				batchDir: c.String("batch-write")}
			if s := c.String("sim"); s != "" {
				opts.sims = strings.Split(s, ",")
			}
			opts.conditions = strings.Split(c.String("conditions"), ",")
			return runGenerate(c, io, opts)
		},
	}
}

// experimentFromFlags builds the experiment of a quick run: built-in
// simulators only (a model endpoint needs prices and limits: use a file).
func experimentFromFlags(opts generateOptions) (sim.Experiment, error) {
	e := sim.Experiment{Name: "flags", Seed: opts.seed, Conditions: opts.conditions, WindowN: opts.window, HistoryK: opts.history}
	if len(opts.sims) == 0 {
		return e, usagef("generate: give --experiment FILE or --sim mix,retrieve")
	}
	for _, s := range opts.sims {
		s = strings.TrimSpace(s)
		if !sim.IsOffline(s) {
			return e, usagef("generate: --sim %q: only the built-in mix and retrieve run from flags; name model simulators in an --experiment file", s)
		}
		e.Simulators = append(e.Simulators, sim.SimulatorConfig{Name: s, Backend: s})
	}
	if err := e.Check(); err != nil {
		return e, usagef("generate: %v", err)
	}
	return e, nil
}

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

func runGenerate(c *cli.Context, sio *streams, opts generateOptions) error {
	var e sim.Experiment
	var err error
	if opts.experiment != "" {
		if e, err = sim.LoadExperiment(opts.experiment); err != nil {
			return usageError{fmt.Errorf("generate: %w", err)}
		}
	} else if e, err = experimentFromFlags(opts); err != nil {
		return err
	}
	if opts.persona != "stats" && opts.persona != "model" {
		return usagef("generate: --persona %q: want stats or model", opts.persona)
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	return generateIn(c, sio, ws, e, opts)
}

// runGenerateOn runs a flags experiment on an open workspace (ub demo).
func runGenerateOn(c *cli.Context, sio *streams, ws *queries.Workspace, opts generateOptions) error {
	e, err := experimentFromFlags(opts)
	if err != nil {
		return err
	}
	return generateIn(c, sio, ws, e, opts)
}

func generateIn(c *cli.Context, sio *streams, ws *queries.Workspace, e sim.Experiment, opts generateOptions) error {
	points, err := queries.Points(c.Context, ws.Conn())
	if err != nil {
		return err
	}
	if len(points) == 0 {
		return fmt.Errorf("generate: no frozen points (run ub split and ub points): %w", queries.ErrNoSplit)
	}
	g := &generator{ctx: c.Context, ws: ws, e: e, io: sio, points: points, in: newSimInputs(ws.Conn(), opts.persona),
		retryFailed: opts.retryFailed, contexts: map[string]queries.PointData{}, batchDir: opts.batchDir}
	g.in.onTheFly = func(dev string) {}
	var sums []SimSummary
	var failed int
	for _, s := range e.Simulators {
		sum, err := g.simulator(s)
		if err != nil {
			return fmt.Errorf("generate: %s: %w", s.Name, err)
		}
		if sim.IsOffline(s.Backend) && sum.Failed > 0 {
			// Deterministic facts of the data (a developer with no answered
			// agent turn in their profile sessions has an empty pool):
			// recorded, reported, and not a fault of the run.
			fmt.Fprintf(sio.err, "note: %s: %d generation(s) recorded with an error (e.g. an empty pool); see ub sql \"select simulator, condition, error, count(*) from generations where error is not null group by all\"\n", s.Name, sum.Failed)
		} else {
			failed += sum.Failed
		}
		sums = append(sums, sum)
	}
	if opts.json {
		enc := json.NewEncoder(sio.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"experiment": e.Name, "points": len(points), "simulators": sums}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(sio.out, "experiment %s: %d points\n", e.Name, len(points))
		fmt.Fprintf(sio.out, "%-20s %11s %8s %10s %6s %7s %7s %10s %10s %10s\n", "simulator", "generations", "written", "unchanged", "sent", "cached", "failed", "tokens in", "tokens out", "cost USD")
		for _, s := range sums {
			fmt.Fprintf(sio.out, "%-20s %11d %8d %10d %6d %7d %7d %10d %10d %10.4f\n", s.Simulator, s.Generations, s.Written, s.Unchanged,
				s.Sent, s.Cached, s.Failed, s.TokensIn, s.TokensOut, s.Cost)
		}
	}
	if failed > 0 {
		return fmt.Errorf("generate: %d generation(s) failed (recorded with their error; see ub sql \"select * from generations where error is not null\"; ub generate --retry-failed sends the retryable ones again): %w", failed, errGenerationsFailed)
	}
	return nil
}

// errGenerationsFailed marks a run that recorded failed generations; exit 7.
var errGenerationsFailed = errModelCalls

type generator struct {
	ctx         context.Context
	ws          *queries.Workspace
	e           sim.Experiment
	io          *streams
	points      []queries.PointRow
	in          *simInputs
	retryFailed bool
	contexts    map[string]queries.PointData
	batchDir    string
}

func (g *generator) pointData(id string) (queries.PointData, error) {
	if pd, ok := g.contexts[id]; ok {
		return pd, nil
	}
	pd, err := queries.PointContext(g.ctx, g.ws.Conn(), id)
	if err != nil {
		return pd, fmt.Errorf("point %s: %w", id, err)
	}
	g.contexts[id] = pd
	return pd, nil
}

// job is one generation to make.
type job struct {
	id    string
	cell  sim.Cell
	point queries.PointRow
	req   sim.Request
	key   string // req.Key(), computed once: it hashes the whole prompt
	parts sim.KeyParts
	ver   string
	text  string // offline simulators: made at once
	err   string
}

// simulator makes every generation of one simulator that is missing or
// whose request changed, through the runner for model backends.
func (g *generator) simulator(s sim.SimulatorConfig) (sum SimSummary, retErr error) {
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
	var jobs []*job
	templates := map[string]sim.TemplateRecord{}
	for _, cell := range g.e.Cells() {
		if cell.Simulator != s.Name {
			continue
		}
		for _, p := range g.points {
			j := &job{id: sim.GenerationID(s.Name, p.ID, cell.Condition, cell.WindowN, cell.HistoryK), cell: cell, point: p}
			if err := g.prepare(s, j, templates); err != nil {
				return sum, err
			}
			j.key = j.req.Key()
			jobs = append(jobs, j)
		}
	}
	sum.Generations = len(jobs)
	for _, t := range templates {
		if err := queries.StorePromptTemplate(g.ctx, g.ws.Conn(), t.Version, t.Name, t.Text); err != nil {
			return sum, err
		}
	}
	// What is stored with the same request key and text stays as it is.
	var todo []*job
	for _, j := range jobs {
		if ex, ok := existing[j.id]; ok && ex.RequestKey == j.key && ex.OK {
			sum.Unchanged++
			continue
		}
		todo = append(todo, j)
	}
	if len(todo) == 0 {
		return sum, nil
	}
	var awaiting []sim.Request
	step := sim.Step[*job, queries.GenerationRow]{
		Endpoint: s.Endpoint(),
		Build:    func(j *job) (sim.Request, error) { return j.req, nil },
		Parse: func(j *job, a sim.Answer) ([]queries.GenerationRow, error) {
			row := g.row(s, j)
			switch {
			case sim.IsOffline(s.Backend):
				row.Text, row.Error = j.text, j.err
			case !a.Stored && sim.IsBatch(s.Backend):
				awaiting = append(awaiting, j.req)
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
	if sim.IsOffline(s.Backend) {
		for _, j := range todo {
			r, _ := step.Parse(j, sim.Answer{})
			rows = append(rows, r...)
		}
	} else {
		var bar func(sim.RunStats)
		done := func() {}
		if !sim.IsBatch(s.Backend) {
			if err := requireAPIKey(s.APIKeyEnv); err != nil {
				return sum, err
			}
			bar, done = generateProgress(g.io, s.Name)
		}
		res, err := sim.RunStep(g.ctx, sim.NewDuckStore(g.ws), todo, step, sim.StepOptions{RetryFailed: g.retryFailed, Progress: bar})
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
		if err := g.writeBatch(s, awaiting); err != nil {
			return sum, err
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

// row is the generation row of a job, without its answer.
func (g *generator) row(s sim.SimulatorConfig, j *job) queries.GenerationRow {
	parts, _ := json.Marshal(j.parts)
	return queries.GenerationRow{ID: j.id, PointID: j.point.ID, Simulator: s.Name, Condition: j.cell.Condition,
		WindowN: j.cell.WindowN, HistoryK: j.cell.HistoryK, RequestKey: j.key, KeyParts: parts,
		PromptVersion: j.ver, Experiment: g.e.Name}
}

// prepare builds a job's request: the exact prompt for a model backend, or
// the offline simulator's input and output.
func (g *generator) prepare(s sim.SimulatorConfig, j *job, templates map[string]sim.TemplateRecord) error {
	pd, err := g.pointData(j.point.ID)
	if err != nil {
		return err
	}
	if sim.IsOffline(s.Backend) {
		in, err := g.in.offline(g.ctx, pd, j.cell.Condition, j.cell.WindowN, j.cell.HistoryK)
		if err != nil {
			j.err = err.Error()
			j.req = sim.Request{Backend: s.Backend, Model: s.Backend, Messages: []sim.Message{{Role: "user", Content: j.point.ID + "\x00" + j.cell.Condition}}}
			j.parts = j.req.Parts()
			return nil
		}
		o, err := sim.NewOffline(s.Backend, s.Seed)
		if err != nil {
			return err
		}
		j.req = sim.OfflineRequest(s.Backend, s.Seed, in)
		j.parts = j.req.Parts()
		j.ver = j.req.Model
		if j.text, err = o.Generate(in); err != nil {
			j.err = err.Error()
		}
		return nil
	}
	pin, err := g.in.prompt(g.ctx, pd, j.cell.Condition, j.cell.HistoryK)
	if err != nil {
		return err
	}
	popts := sim.PromptOptions{Condition: j.cell.Condition, Window: j.cell.WindowN, History: j.cell.HistoryK}
	msgs, ver, err := sim.Build(pin, popts)
	if err != nil {
		return fmt.Errorf("point %s: %w", j.point.ID, err)
	}
	if _, ok := templates[ver]; !ok {
		t, err := sim.PromptTemplate(popts)
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
	j.req = sim.Request{Backend: backend, BaseURL: s.BaseURL, Model: s.Model, Params: s.Params(), Messages: msgs}
	j.ver = ver
	j.parts = j.req.Parts()
	j.parts.Template = ver
	return nil
}

// writeBatch writes the requests a batch simulator still waits for as
// provider batch files (with --batch-write DIR).
func (g *generator) writeBatch(s sim.SimulatorConfig, reqs []sim.Request) error {
	if len(reqs) == 0 {
		return nil
	}
	if g.batchDir == "" {
		fmt.Fprintf(g.io.err, "note: %s: %d requests await a batch answer; write them with ub generate --batch-write DIR\n", s.Name, len(reqs))
		return nil
	}
	provider := sim.OpenAIBatch
	if s.Backend == "anthropic-batch" {
		provider = sim.AnthropicBatch
	}
	files, err := sim.WriteBatchFiles(g.batchDir, s.Name, provider, reqs, sim.BatchOptions{DefaultMaxTokens: s.MaxTokens})
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintf(g.io.err, "wrote %s (%d requests, %d bytes) and %s\n", f.Path, f.Requests, f.Bytes, f.KeysPath)
	}
	fmt.Fprintf(g.io.err, "submit them to the provider's batch API, then: ub batch import --provider %s --keys %s RESULT...; and ub generate again\n",
		provider, files[0].KeysPath)
	return nil
}

// generateProgress draws done/total, failures, tokens, cost and ETA on a
// terminal; nil callback otherwise.
func generateProgress(io *streams, name string) (func(sim.RunStats), func()) {
	if !io.tty {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	return func(st sim.RunStats) {
			if bar == nil {
				bar = progressbar.NewOptions(st.Unique, progressbar.OptionSetWriter(io.err), progressbar.OptionShowCount(),
					progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
			}
			bar.Describe(fmt.Sprintf("%s: %d failed, %d/%d tokens, $%.4f, ETA %s", name, st.Failed(), st.TokensIn, st.TokensOut,
				st.Cost, st.ETA().Round(time.Second)))
			bar.Set(st.Done())
		}, func() {
			if bar != nil {
				bar.Finish()
			}
		}
}
