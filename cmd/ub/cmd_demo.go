package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/cmd/internal/load"
	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
	"github.com/ub-bench/ub/sim/synth/democorpus"
)

type demoOptions struct {
	dir  string
	seed uint64
	db   string
}

func newDemoCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "run the whole pipeline offline on a corpus ub writes itself",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Value: "ub-demo", Usage: "`DIR` for the demo corpus, workspace and report"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the demo corpus"},
		},
		Action: func(c *cli.Context) error {
			opts := demoOptions{dir: c.String("dir"), seed: c.Uint64("seed"), db: filepath.Join(c.String("dir"), "ub.duckdb")}
			if c.IsSet("db") && filepath.Clean(c.String("db")) != filepath.Clean(opts.db) {
				// The demo's workspace is always its own: a --db or UB_DB
				// naming the user's workspace must never be replaced.
				fmt.Fprintf(sio.err, "ub demo: using its own workspace %s (--db / UB_DB is not used by the demo)\n", opts.db)
			}
			return runDemo(c, sio, opts)
		},
	}
}

// runDemo is ub demo, the whole pipeline on a corpus it writes itself, in
// the order a user runs it: claim the demo folder (deleting only what an
// earlier demo wrote there) and write the corpus; open a fresh workspace
// marked synthetic and ingest the sessions and the tau2 sample (with its
// probes); split, freeze points, audit; generate with the built-in
// simulators and sweeps; label with the built-in judge and demo-truth;
// run the scripted review; write the fidelity study's files and read them
// in; and draw the report. Every file is recorded in the folder's marker
// before it is written, so that the next demo knows it as its own.
func runDemo(c *cli.Context, sio *streams, opts demoOptions) error {
	corpus := filepath.Join(opts.dir, "corpus")
	// The demo deletes only what an earlier demo wrote in a directory it
	// made, so that every run starts clean and gives the same result.
	if err := claimDemoDir(opts.dir); err != nil {
		return err
	}
	if err := recordDemoFiles(opts.dir, opts.db, opts.db+".wal"); err != nil {
		return err
	}
	before := filesUnder(corpus)
	paths, manifest, err := democorpus.WriteSessions(corpus, opts.seed)
	if rerr := recordDemoFiles(opts.dir, newFilesUnder(corpus, before)...); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("demo: write corpus: %w", err)
	}
	fmt.Fprintf(sio.out, "demo corpus: %s (%d inputs, seed %d)\n", corpus, len(paths), opts.seed)
	ws, err := queries.Open(c.Context, opts.db, queries.Options{MemoryLimit: c.String("memory-limit")})
	if err != nil {
		return err
	}
	defer ws.Close()
	if err := queries.MarkSynthetic(c.Context, ws.Conn(), queries.Origin{Maker: "ub demo", Detail: fmt.Sprintf("seed %d", opts.seed)}); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	fmt.Fprintf(sio.out, "\n== ingest\n")
	st, err := ingest.Run(c.Context, ws, paths, ingest.Options{Manifest: manifest, NewProber: newProber})
	printIngestSummary(sio, st)
	if err != nil {
		for _, e := range st.Errors {
			fmt.Fprintln(sio.err, e)
		}
		return fmt.Errorf("demo: ingest: %w", err)
	}
	if err := demoEpisodes(c, sio, ws, corpus); err != nil {
		return err
	}

	fmt.Fprintf(sio.out, "\n== split, points, audit\n")
	sopts := splitOptions{seed: int64(opts.seed), by: "developers", heldoutFraction: defaultHeldoutFraction,
		minHeldoutSessions: defaultMinHeldoutSessions, minSessions: defaultMinSessions, minHeldoutMoments: defaultMinHeldoutMoments}
	// The demo corpus is small: give val and test a larger share than a real study would.
	sopts.ratios = "train=0.5,val=0.2,test=0.3"
	ratios, err := sopts.validate()
	if err != nil {
		return err
	}
	if _, err := makeSplit(c, ws, sopts, ratios); err != nil {
		return err
	}
	if _, _, err := freezePoints(c, ws, pointsOptions{perDeveloper: 30, seed: int64(opts.seed)}); err != nil {
		return err
	}
	if err := printSplitReport(c, sio, ws, filepath.Join(opts.dir, "report")); err != nil {
		return err
	}
	findings, err := queries.Audit(c.Context, ws.Conn())
	if err != nil {
		return err
	}
	if err := reportAudit(sio, findings, false); err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "\n== generate (mix, retrieve; profile, noprofile, terse; sweeps of N and K: retrieve, profile)\n")
	gopts := generateOptions{sims: []string{"mix", "retrieve"}, conditions: []string{sim.CondProfile, sim.CondNoProfile, sim.CondTerse},
		window: sim.DefaultWindow, seed: int64(opts.seed), persona: "stats"}
	e, err := experimentFromFlags(gopts)
	if err != nil {
		return err
	}
	e.Name = "demo"
	e.Sweeps = demoSweeps()
	if err := e.Check(); err != nil {
		return err
	}
	if err := generateIn(c, sio, ws, e, gopts); err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "\n== judge (builtin)\n")
	b, err := judge.NewBuiltin()
	if err != nil {
		return err
	}
	// profile: the moments of the profile sessions, from which the
	// leaderboard's chance and majority lines are formed.
	for _, t := range []string{"points", "generations", "profile"} {
		sum, counts, err := judgeTargets(c, ws, b, "builtin", t)
		if err != nil {
			return err
		}
		fmt.Fprintf(sio.out, "%s: %d labelled  %s\n", t, sum.Labels, counts)
	}
	fmt.Fprintf(sio.out, "\n== judge (%s: the move each demo message was written as)\n", demoSecondJudge)
	if err := demoTruthLabels(c, sio, ws); err != nil {
		return err
	}
	if err := runReviewDemo(c.Context, sio, ws, opts.dir); err != nil {
		return err
	}
	// The fidelity study's episodes come after the review, whose batch is
	// drawn from the tau2 sample above.
	if err := demoFidelity(c, sio, ws, opts.dir, filepath.Join(corpus, "tau2-ufs")); err != nil {
		return err
	}
	fmt.Fprintf(sio.out, "\n== report\n")
	qs, _ := parseQs("0.75,0.84,0.86")
	rep, err := loadStudy(c, sio, ws, load.Options{Judge: "builtin", Fidelity: load.Fidelity{Qs: qs, Prompts: 1000, Rollouts: 64}})
	if err != nil {
		return err
	}
	out := filepath.Join(opts.dir, "report")
	sum, err := rep.WriteAll(out)
	if rerr := recordDemoFiles(opts.dir, sum.Files...); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("demo: report: %w", err)
	}
	for _, s := range sum.Skipped {
		fmt.Fprintf(sio.out, "skipped %s: %s\n", s.Figure, s.Reason)
	}
	fmt.Fprintf(sio.out, "report: %s (%d figures, %d skipped)\n", filepath.ToSlash(filepath.Join(out, "report.md")), len(sum.Figures), len(sum.Skipped))
	fmt.Fprintf(sio.out, "(judge-agreement compares the built-in judge with %s, the move the demo corpus wrote each message as: a known answer only a made-up corpus has)\n", demoSecondJudge)
	fmt.Fprintf(sio.out, "(every figure, without spending money: ub synth --db synth.duckdb && ub --db synth.duckdb report --out synth-report)\n")
	fmt.Fprintf(sio.out, "\nworkspace: %s\ntry: ub --db %s sql \"select role, count(*) from turns group by all order by 1\"\n", opts.db, opts.db)
	return nil
}

// demoSecondJudge is the demo's second judge, for judge-agreement: the
// move the demo corpus wrote each point's real message as
// (democorpus.Move), stored as labels like an imported labelled sample.
const demoSecondJudge = "demo-truth"

// demoTruthLabels stores the demo-truth label of every point whose real
// message a demo template made.
func demoTruthLabels(c *cli.Context, sio *streams, ws *queries.Workspace) error {
	kind, items, err := labelTargets(c, ws, "points")
	if err != nil {
		return err
	}
	var labels []queries.Label
	count := map[string]int{}
	for _, it := range items {
		m, ok := democorpus.Move(it.Text)
		if !ok {
			continue
		}
		count[m]++
		labels = append(labels, queries.Label{Target: kind, TargetID: it.ID, Judge: demoSecondJudge, Move: m,
			PromptVersion: "demo-corpus", Raw: "the demo template's move", Confidence: 1})
	}
	if err := queries.ReplaceLabels(c.Context, ws, demoSecondJudge, kind, labels); err != nil {
		return fmt.Errorf("demo: store %s labels: %w", demoSecondJudge, err)
	}
	var parts []string
	for _, m := range judge.Moves() {
		parts = append(parts, fmt.Sprintf("%s %d", m, count[m.String()]))
	}
	fmt.Fprintf(sio.out, "points: %d labelled (of %d)  %s\n", len(labels), len(items), strings.Join(parts, ", "))
	return nil
}

// demoSweeps are the demo's sweeps, kept to one simulator and condition so
// that a cold demo stays near a minute: the context sweep (N = 1..10 and 14
// at K = 0), the history sweep (K up to 64 at N = 14, and K = 8 and 64 at
// N = 1) and the N x K surface.
func demoSweeps() []sim.Sweep {
	one := []string{"retrieve"}
	cond := []string{sim.CondProfile}
	return []sim.Sweep{
		{Name: "context", Simulators: one, Conditions: cond, WindowN: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14}, HistoryK: []int{0}},
		{Name: "history", Simulators: one, Conditions: cond, WindowN: []int{14}, HistoryK: []int{0, 2, 4, 8, 16, 32, 64}},
		{Name: "history-n1", Simulators: one, Conditions: cond, WindowN: []int{1}, HistoryK: []int{8, 64}},
		{Name: "surface", Simulators: one, Conditions: cond, WindowN: []int{1, 2, 4, 8, 14}, HistoryK: []int{0, 4, 16, 64}},
	}
}
