package synth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/graph/splits"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

// Judges of the synthetic labels: Judge labels every point and generation
// with the planted move; AltJudge relabels the points and the leaderboard
// generations, agreeing with Judge on a share AltAgreement of them and
// otherwise giving another move, so the judge-agreement figure has a pair
// to compare (planted Cohen's kappa about 0.8).
const (
	Judge        = "synth"
	AltJudge     = "synth-alt"
	AltAgreement = 0.88
	JudgeVersion = "synth-v1"
	Backend      = "synth"
	Experiment   = "synth"
)

// The makers the synthetic studies record in the workspace's provenance
// (queries.MarkSynthetic): every report drawn from it says the data is
// synthetic.
const (
	MakerUserBench = "ub synth --study userbench"
	MakerFidelity  = "ub synth --study fidelity"
)

// Options configures Write. The zero value is valid: seed 0 at scale 1.
type Options struct {
	Seed uint64
	// Scale multiplies the developers of the study, and with them the
	// components, sessions, points and generations: 1 (the seed's shape),
	// 10 or 100 for benchmarks. 0 means 1.
	Scale int
	// Trials is the number of generations per point in every run (ub
	// generate's trials = k): trial 0 is what a single-trial study
	// draws, each later trial draws again from its own stream, with the
	// same planted hit probability. 0 means 1.
	Trials int
	// Progress is called at the start of each stage; nil means silent.
	Progress func(stage string)
}

// Stats counts what Write wrote.
type Stats struct {
	Developers, Repos, Components, Sessions, Turns int
	Eligible, Points                               int
	Simulators, Generations, Labels                int
	SplitHash, PointSetHash                        string
}

// ErrNotEmpty is returned by Write for a workspace that already holds
// sessions, generations or labels: a synthetic study is written whole into
// a fresh workspace, never mixed with real data.
var ErrNotEmpty = errors.New("the workspace is not empty")

// Write generates the synthetic study of opts and writes it through the
// workspace's own tables: developers, repositories and sessions with their
// turns; the split (by ub split's rules: components, time split,
// eligibility); PointsPerDeveloper frozen points per eligible developer
// (drawn as ub points draws them); the planted simulators, prompt
// templates, generations and the labels of [Judge] and [AltJudge]. The
// same options give the same rows, whatever order they are read in.
func Write(ctx context.Context, ws *queries.Workspace, opts Options) (Stats, error) {
	var st Stats
	scale := opts.Scale
	if scale <= 0 {
		scale = 1
	}
	progress := opts.Progress
	if progress == nil {
		progress = func(string) {}
	}
	empty, err := queries.StudyEmpty(ctx, ws.Conn())
	if err != nil {
		return st, err
	}
	if !empty {
		return st, fmt.Errorf("synth: %w (ub synth writes a fresh workspace; pass another --db)", ErrNotEmpty)
	}
	restore, err := queries.ApplySettings(ctx, ws.Conn(), queries.DeferCheckpoints, queries.Threads(queries.BulkWriteThreads))
	if err != nil {
		return st, err
	}
	st, err = writeStudy(ctx, ws, opts, scale, progress)
	if rerr := restore(context.WithoutCancel(ctx)); err == nil {
		err = rerr
	}
	if err != nil {
		// The study is committed in chunks: a failure leaves the
		// workspace empty, as it was.
		return st, clearStudy(ctx, ws, err)
	}
	return st, nil
}

// writeStudy is Write on an empty workspace.
func writeStudy(ctx context.Context, ws *queries.Workspace, opts Options, scale int, progress func(string)) (Stats, error) {
	var st Stats
	progress("corpus")
	// The sessions are written as they are drawn, the developers and
	// repositories after them.
	cw := newChunkWriter(ctx, ws, chunkRows)
	c, err := buildCorpus(opts.Seed, scale, func(ss []session) { writeSessions(cw, ss) })
	if err != nil {
		cw.Commit(nil)
		return st, err
	}
	c.write(cw)
	if err := cw.Commit(nil); err != nil {
		return st, fmt.Errorf("synth: sessions: %w", err)
	}
	st.Developers, st.Sessions, st.Turns = len(c.devs), c.nsessions, c.turns
	repos := map[string]bool{}
	for _, e := range c.edges {
		repos[e.Repo] = true
	}
	st.Repos = len(repos)

	progress("split")
	run, ncomp, err := c.storeSplit(ctx, ws, opts.Seed)
	if err != nil {
		return st, fmt.Errorf("synth: split: %w", err)
	}
	st.SplitHash, st.Components = run.Hash, ncomp

	progress("points")
	points, set, err := storePoints(ctx, ws, opts.Seed)
	if err != nil {
		return st, fmt.Errorf("synth: points: %w", err)
	}
	st.Points, st.PointSetHash = len(points), set.Hash
	devs := map[string]bool{}
	for _, p := range points {
		devs[p.Developer] = true
	}
	st.Eligible = len(devs)
	if want := EligiblePerBlock * scale; st.Eligible != want || st.Points != want*PointsPerDeveloper {
		return st, fmt.Errorf("synth: %d eligible developers with %d points, want %d with %d", st.Eligible, st.Points, want, want*PointsPerDeveloper)
	}

	progress("generations")
	cw = newChunkWriter(ctx, ws, chunkRows)
	st.Simulators, st.Generations, st.Labels = c.writeGenerations(cw, opts.Seed, scale, max(opts.Trials, 1), points)
	// The provenance goes in the last transaction: a workspace that says
	// it holds a synthetic study holds all of it.
	err = cw.Commit(func() error {
		detail := fmt.Sprintf("seed %d, scale %d", opts.Seed, scale)
		if opts.Trials > 1 {
			detail += fmt.Sprintf(", trials %d", opts.Trials)
		}
		return queries.MarkSynthetic(ctx, ws.Conn(), queries.Origin{Maker: MakerUserBench, Detail: detail})
	})
	if err != nil {
		return st, fmt.Errorf("synth: generations: %w", err)
	}
	return st, nil
}

// write gives the developers, repositories and their edges to rw.
func (c *corpus) write(rw *chunkWriter) {
	for _, d := range c.devs {
		rw.Developer(d.name)
	}
	repos := map[string]bool{}
	for _, e := range c.edges {
		repos[e.Repo] = true
	}
	names := make([]string, 0, len(repos))
	for r := range repos {
		names = append(names, r)
	}
	sort.Strings(names)
	for _, r := range names {
		rw.Repo(r)
	}
	for _, e := range c.edges {
		rw.DeveloperRepo(e.Developer, e.Repo, "session")
	}
	rw.Row(len(c.devs) + len(names) + len(c.edges))
}

// writeSessions gives sessions and their turns to rw, committing between
// sessions.
func writeSessions(rw *chunkWriter, sessions []session) {
	for _, s := range sessions {
		x := &s.s
		rw.Session(queries.SessionRow{ID: x.ID, Developer: x.Developer, Repo: x.Repo, StartedAt: x.StartedAt, Format: x.Format,
			SourceFile: x.SourceFile, Line: x.Line, ContentHash: x.ContentHash(), Turns: len(x.Turns)})
		for j, t := range x.Turns {
			rw.Turn(queries.TurnRow{SessionID: x.ID, Idx: j, Role: string(t.Role), Text: t.Text})
		}
		rw.Row(1 + len(x.Turns))
	}
}

// storeSplit makes the split as ub split does (splits.Make) and checks that
// every developer landed in the split the corpus planned for them.
func (c *corpus) storeSplit(ctx context.Context, ws *queries.Workspace, seed uint64) (queries.SplitRun, int, error) {
	sp, err := splits.Make(ctx, ws, splits.Options{Seed: int64(seed), Ratios: Ratios, By: graph.ByDevelopers,
		HeldoutFraction: heldoutFraction, MinHeldoutSessions: minHeldoutSessions,
		MinSessions: minSessions, MinHeldoutMoments: minHeldoutMoments})
	if err != nil {
		return queries.SplitRun{}, 0, err
	}
	for _, d := range sp.Developers {
		if c.byName[d.Name].split != d.Split {
			return queries.SplitRun{}, 0, fmt.Errorf("developer %s planned in %s, assigned to %s", d.Name, c.byName[d.Name].split, d.Split)
		}
	}
	return sp.Run, len(sp.Components), nil
}

// storePoints freezes PointsPerDeveloper held-out moments per eligible
// developer as ub points does (splits.Freeze).
func storePoints(ctx context.Context, ws *queries.Workspace, seed uint64) ([]queries.PointRow, queries.PointSet, error) {
	set, rows, err := splits.Freeze(ctx, ws, splits.PointOptions{PerDeveloper: PointsPerDeveloper, Seed: int64(seed)})
	return rows, set, err
}

// Run is one prompt setting a simulator is generated at, over every point:
// a cell of an experiment, as ub generate runs it.
type Run = sim.Cell

// Runs lists every run of the study, sorted: each planted simulator in each
// of its conditions at the anchor (N = 14, K = 0); and, for the
// [ContextSimulator] without profile, the context sweep, the history sweep,
// the substitution test and the N x K surface, each setting once. The study
// is an experiment with those four sweeps, expanded as ub generate expands
// one (sim.Experiment.Cells).
func Runs() []Run { return runsOf(Planted(), false) }

// runsOf is Runs of sims; anchorOnly leaves out the sweeps.
func runsOf(sims []Simulator, anchorOnly bool) []Run {
	e := sim.Experiment{WindowN: AnchorN, HistoryK: AnchorK}
	for _, s := range sims {
		var conds []string
		for cond := range s.Conditions {
			conds = append(conds, cond)
		}
		e.Simulators = append(e.Simulators, sim.SimulatorConfig{Name: s.Name, Conditions: conds})
	}
	sweep := func(ns, ks []int) sim.Sweep {
		return sim.Sweep{Simulators: []string{ContextSimulator}, Conditions: []string{queries.CondNoProfile}, WindowN: ns, HistoryK: ks}
	}
	if !anchorOnly {
		e.Sweeps = []sim.Sweep{sweep(ContextSweepN, []int{0}), sweep([]int{AnchorN}, HistorySweepK),
			sweep([]int{1}, SubstitutionK), sweep(SurfaceN, SurfaceK)}
	}
	return e.Cells()
}

// templates are the prompt templates of the three conditions; their
// version is the short sha256 of the text, as for real templates.
var templates = map[string]string{
	queries.CondNoProfile: "You are a software developer working with a coding agent. {conversation} Write what the developer says next.",
	queries.CondProfile:   "{profile} You are this developer, working with a coding agent. {conversation} Write what the developer says next.",
	queries.CondTerse:     "You are a terse senior engineer; do not ask clarifying questions; reply in under 12 words. {conversation} Write what the developer says next.",
}

func templateVersion(cond string) string {
	h := sha256.Sum256([]byte(templates[cond]))
	return hex.EncodeToString(h[:6])
}

// HitProbability is the planted chance that simulator s in behaviour b
// makes the real move at a moment of a developer with ability offset u and
// simulator offset v, real move index m, prior turns p, shown the last n
// turns and k history messages.
func HitProbability(b Behaviour, u, v float64, m, p, n, k int) float64 {
	return b.Accuracy + u + v + b.Tilt.Deltas()[m] + ContextCurve(min(n, p)) - ContextCurve(min(AnchorN, p)) + HistoryEffect(k)
}

func moveIndex(m string) int {
	for i, x := range Moves {
		if x == m {
			return i
		}
	}
	return 2
}

// writeGenerations gives the simulators, templates, generations and labels
// to rw, committing between generations; rw keeps the first error.
func (c *corpus) writeGenerations(rw *chunkWriter, seed uint64, scale, trials int, points []queries.PointRow) (nsim, ngen, nlab int) {
	sims := Planted()
	byName := map[string]Simulator{}
	for _, s := range sims {
		byName[s.Name] = s
		params := map[string]any{"temperature": 1.0, "max_tokens": 512}
		if s.Effort != "" {
			params["reasoning_effort"] = s.Effort
		}
		pj, _ := json.Marshal(params)
		rw.Simulator(queries.SimulatorRow{Name: s.Name, Backend: Backend, Model: s.Model, Params: pj,
			PriceIn: s.PriceIn, PriceOut: s.PriceOut, BatchDiscount: 0.5})
	}
	for _, cond := range []string{queries.CondNoProfile, queries.CondProfile, queries.CondTerse} {
		rw.PromptTemplate(templateVersion(cond), "synth-"+cond, templates[cond])
	}
	altRNG := stream(seed, "judge/"+AltJudge)
	altLabel := func(target, id, move string) {
		alt := move
		if altRNG.Float64() >= AltAgreement {
			// Another move, directive twice as likely (the confusable
			// directive/critical and directive/inquiry borders).
			w := [4]float64{1, 1, 2, 1}
			w[moveIndex(move)] = 0
			alt = Moves[draw(altRNG, w)]
		}
		rw.Label(queries.Label{Target: target, TargetID: id, Judge: AltJudge, Move: alt, PromptVersion: JudgeVersion})
		nlab++
	}
	lab7RNG := stream(seed, "judge/label7")
	for _, p := range points {
		mv := c.moments[p.ID].move
		rw.Label(queries.Label{Target: "point", TargetID: p.ID, Judge: Judge, Move: mv, Label7: label7(lab7RNG, mv), PromptVersion: JudgeVersion})
		altLabel("point", p.ID, mv)
		nlab++
		rw.Row(3)
	}

	experiment := fmt.Sprintf("%s:seed=%d,scale=%d", Experiment, seed, scale)
	if trials > 1 {
		experiment += fmt.Sprintf(",trials=%d", trials)
	}
	c.drawGenerations(seed, sims, runsOf(sims, false), trials, points, func(g drawn) {
		r := g.run
		parts, _ := json.Marshal(map[string]any{"backend": Backend, "model": byName[r.Simulator].Model, "sample": g.trial, "template": g.version})
		rw.Generation(queries.GenerationRow{ID: g.id, PointID: g.point.ID, Simulator: r.Simulator, Condition: r.Condition,
			WindowN: r.WindowN, HistoryK: r.HistoryK, RequestKey: g.key, KeyParts: parts, Text: g.text, TokensIn: g.tin, TokensOut: g.tout,
			Cost: g.cost, LatencyMS: int64(300 + 8*g.tout), PromptVersion: g.version, Experiment: experiment, Trial: g.trial})
		rw.Label(queries.Label{Target: "generation", TargetID: g.id, Judge: Judge, Move: g.move, Label7: label7(lab7RNG, g.move), PromptVersion: JudgeVersion})
		ngen++
		nlab++
		rows := 2
		if r.WindowN == AnchorN && r.HistoryK == AnchorK && r.Condition != queries.CondTerse {
			altLabel("generation", g.id, g.move)
			rows++
		}
		rw.Row(rows)
	})
	// The planted moves of the eligible developers' profile-session
	// moments, as judge Judge's labels of target "message": the move mix
	// the report's chance and majority lines are formed from.
	ids := make([]string, 0, len(c.profile))
	for id := range c.profile {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		rw.Label(queries.Label{Target: "message", TargetID: id, Judge: Judge, Move: c.profile[id].move, PromptVersion: JudgeVersion})
		nlab++
		rw.Row(1)
	}
	return len(sims), ngen, nlab
}

// drawn is one generation as drawGenerations draws it.
type drawn struct {
	run       Run
	point     queries.PointRow
	trial     int    // from 0
	move      string // the planted move: the judge's label
	words     int
	text      string
	id, key   string // generation id and request key
	version   string // prompt template version
	tin, tout int
	cost      float64
}

// drawGenerations draws the generations of runs at points, trials times
// each, in order, and gives each to emit: the one generator of Write and
// [InMemory]. Every run draws from its own stream, every later trial of it
// from its own, and every (simulator, condition) pair its per-developer
// offsets v from its own, so a subset of the runs draws exactly what the
// whole study draws for them, and the first trial what a single-trial
// study draws. The trials of a run share its planted hit probabilities:
// they differ by the draws alone.
func (c *corpus) drawGenerations(seed uint64, sims []Simulator, runs []Run, trials int, points []queries.PointRow, emit func(drawn)) {
	byName := map[string]Simulator{}
	for _, s := range sims {
		byName[s.Name] = s
	}
	// The per-developer simulator offsets v, one per (simulator,
	// condition, developer), shared by every setting of that pair.
	type sc struct{ sim, cond string }
	voff := map[sc]map[string]float64{}
	vfor := func(sim, cond string) map[string]float64 {
		k := sc{sim, cond}
		if m, ok := voff[k]; ok {
			return m
		}
		rng := stream(seed, "offset/"+sim+"/"+cond)
		m := map[string]float64{}
		for _, d := range c.devs {
			if d.kind == kindEligible {
				m[d.name] = SimulatorSpread * (2*rng.Float64() - 1)
			}
		}
		voff[k] = m
		return m
	}
	for _, r := range runs {
		s := byName[r.Simulator]
		b := s.Conditions[r.Condition]
		v := vfor(r.Simulator, r.Condition)
		version := templateVersion(r.Condition)
		for trial := range max(trials, 1) {
			name := fmt.Sprintf("gen/%s/%s/%d/%d", r.Simulator, r.Condition, r.WindowN, r.HistoryK)
			id := []string{r.Simulator, "", r.Condition, fmt.Sprint(r.WindowN), fmt.Sprint(r.HistoryK)}
			key := []string{"request", Backend, s.Model, r.Simulator, "", r.Condition, fmt.Sprint(r.WindowN), fmt.Sprint(r.HistoryK)}
			if trial > 0 {
				name += fmt.Sprintf("/trial/%d", trial)
				id = append(id, fmt.Sprint(trial))
				key = append(key, fmt.Sprint(trial))
			}
			c.drawRun(stream(seed, name), r, s, b, v, version, trial, id, key, points, emit)
		}
	}
}

// drawRun draws one trial of run r at points from rng (drawGenerations);
// id and key are the parts of the generation id and request key hashes,
// the point's id going at index 1 of id and 4 of key.
func (c *corpus) drawRun(rng *rand.Rand, r Run, s Simulator, b Behaviour, v map[string]float64, version string, trial int,
	id, key []string, points []queries.PointRow, emit func(drawn)) {
	for _, p := range points {
		d := c.byName[p.Developer]
		real := moveIndex(c.moments[p.ID].move)
		hit := HitProbability(b, d.u, v[d.name], real, p.PriorTurns, r.WindowN, r.HistoryK)
		gen := real
		if rng.Float64() >= hit {
			w := b.Miss
			w[real] = 0
			gen = draw(rng, w)
		}
		move := Moves[gen]
		words := lengthOf(rng, b.Words)
		text := message(rng, move, words)
		tin := 600 + 45*min(r.WindowN, p.PriorTurns) + 12*r.HistoryK
		if r.Condition == queries.CondProfile {
			tin += 250
		}
		tout := int(math.Round(1.35*float64(words))) + s.Reasoning
		id[1], key[4] = p.ID, p.ID
		emit(drawn{run: r, point: p, trial: trial, move: move, words: words, text: text, version: version, tin: tin, tout: tout,
			cost: (float64(tin)*s.PriceIn + float64(tout)*s.PriceOut) / 1e6,
			id:   shortHash(id...),
			key:  fullHash(key...)})
	}
}
