package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

type gradeOptions struct {
	grader, domain string
	model          modelJudge
}

func newGradeCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "grade",
		Usage: "grade every (episode, criterion) with a model, one criterion per call, blind to the simulator: pass, fail (with the failing turn) or na",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "grader", Usage: "grader `NAME` of the verdicts (default: model:MODEL)"},
			&cli.StringFlag{Name: "domain", Usage: "grade only the episodes of `DOMAIN`"},
			&cli.StringFlag{Name: "model", Usage: "the grader model `NAME` at --base-url", Required: true},
			&cli.StringFlag{Name: "base-url", Usage: "OpenAI-compatible endpoint of the grader", Required: true},
			&cli.StringFlag{Name: "api-key-env", Usage: "the NAME of the variable holding the grader's API key"},
			&cli.IntFlag{Name: "concurrency", Value: 4, Usage: "requests in flight"},
			&cli.Float64Flag{Name: "rate-limit", Usage: "requests per second (0: unlimited)"},
			&cli.Float64Flag{Name: "price-in", Usage: "USD per million input tokens"},
			&cli.Float64Flag{Name: "price-out", Usage: "USD per million output tokens"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "send again requests that failed after all retries"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			g := c.String("grader")
			if g == "" {
				g = "model:" + c.String("model")
			}
			return runGrade(c, io, gradeOptions{grader: g, domain: c.String("domain"),
				model: modelJudge{model: c.String("model"), baseURL: c.String("base-url"), apiKeyEnv: c.String("api-key-env"),
					concurrency: c.Int("concurrency"), rateLimit: c.Float64("rate-limit"), priceIn: c.Float64("price-in"),
					priceOut: c.Float64("price-out"), retryFailed: c.Bool("retry-failed")}})
		},
	}
}

// runGrade grades through the runner (cache, retries, rate limit, cost:
// nothing answered is paid twice). A verdict that does not parse is not
// stored (its raw answer stays in the response cache) and is counted; a
// request that failed leaves its pair ungraded and is reported.
func runGrade(c *cli.Context, sio *streams, opts gradeOptions) error {
	ctx := c.Context
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	items, err := queries.GradeItems(ctx, ws.Conn(), opts.domain)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return fmt.Errorf("grade: no episode has a criterion of its task (ingest episodes, then ub rubrics import)")
	}
	msgs, err := queries.Transcripts(ctx, ws.Conn(), opts.domain)
	if err != nil {
		return err
	}
	transcripts := map[string][]judge.TranscriptLine{}
	for _, m := range msgs {
		l := judge.TranscriptLine{TurnIdx: m.TurnIdx, Role: m.Role, Text: m.Content}
		if m.Calls != "" {
			l.Calls = []string{m.Calls}
		}
		transcripts[m.SimulationID] = append(transcripts[m.SimulationID], l)
	}
	mj := opts.model
	zero := 0.0
	reqs := make([]sim.Request, len(items))
	for i, it := range items {
		gi := judge.GradeItem{
			Blueprint: judge.Blueprint{ReasonForCall: it.ReasonForCall, KnownInfo: it.KnownInfo, UnknownInfo: it.UnknownInfo,
				TaskInstructions: it.TaskInstructions, Persona: it.Persona, Instruction: it.Instruction},
			Criterion: judge.Criterion{CriterionID: it.CriterionID, Family: it.Family, Mode: it.Mode, Quote: it.Quote,
				QuoteSource: it.QuoteSource, Text: it.Text, AppliesWhen: it.AppliesWhen},
			Transcript: transcripts[it.SimulationID],
		}
		var ms []sim.Message
		for _, m := range judge.GradeMessages(gi) {
			ms = append(ms, sim.Message{Role: m.Role, Content: m.Content})
		}
		reqs[i] = sim.Request{Backend: "openai", BaseURL: mj.baseURL, Model: mj.model,
			Params: sim.Params{Temperature: &zero, MaxTokens: 300}, Messages: ms}
	}
	price := sim.SimulatorConfig{PriceIn: mj.priceIn, PriceOut: mj.priceOut}
	store := sim.NewDuckStore(ws)
	bar, done := generateProgress(sio, "grade "+opts.grader)
	st, err := sim.Run(ctx, reqs, sim.NewOpenAI(sim.OpenAIConfig{BaseURL: mj.baseURL, APIKeyEnv: mj.apiKeyEnv}), store,
		sim.RunOptions{Concurrency: mj.concurrency, RatePerSecond: mj.rateLimit, RetryFailed: mj.retryFailed,
			Cost:     func(_ sim.Request, r sim.Response) float64 { return price.Cost(r.TokensIn, r.TokensOut, r.ViaBatch) },
			Progress: bar})
	done()
	if err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	keys := sim.Keys(reqs)
	answers, err := store.Get(ctx, keys)
	if err != nil {
		return err
	}
	var vs []queries.StoredVerdict
	count := map[string]int{}
	failed := 0
	for i, it := range items {
		a, ok := answers[keys[i]]
		if !ok || a.Err != "" {
			failed++
			continue
		}
		v, turn, reason, perr := judge.ParseGrade(a.Text)
		if perr != nil {
			count["unparseable"]++
			continue
		}
		count[v]++
		vs = append(vs, queries.StoredVerdict{SimulationID: it.SimulationID, CriterionID: it.CriterionID, Grader: opts.grader,
			Verdict: v, TurnIdx: turn, Reason: reason, PromptVersion: judge.GradePromptVersion(), RequestKey: keys[i],
			SourceFile: "grade:" + mj.model, SourceLine: i + 1})
	}
	if err := queries.PutVerdicts(ctx, ws, vs); err != nil {
		return fmt.Errorf("grade: store: %w", err)
	}
	fmt.Fprintf(sio.out, "%d of %d (episode, criterion) graded by %s (%s, model %s): %d sent, %d cached, %d failed, $%.4f; pass %d, fail %d, na %d, unparseable %d\n",
		len(vs), len(items), opts.grader, judge.GradePromptVersion(), mj.model, st.Sent, st.Cached, failed, st.Cost,
		count["pass"], count["fail"], count["na"], count["unparseable"])
	if failed > 0 {
		return fmt.Errorf("grade: %d request(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", failed, errGenerationsFailed)
	}
	return nil
}
