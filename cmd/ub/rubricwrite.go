package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim"
)

type rubricWriteOptions struct {
	domain          string
	sample          bool
	writer, checker modelJudge
}

func newRubricsWriteCommand(io *streams) *cli.Command {
	return &cli.Command{
		Name:  "write",
		Usage: "write every task's rubric with a model (versioned writer prompt) and check it with a second model (versioned verifier prompt); rejected criteria are kept with the reason",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "the writer model `NAME`", Required: true},
			&cli.StringFlag{Name: "base-url", Usage: "OpenAI-compatible endpoint of the writer", Required: true},
			&cli.StringFlag{Name: "api-key-env", Usage: "the NAME of the variable holding the writer's API key"},
			&cli.StringFlag{Name: "verifier-model", Usage: "the verifier model `NAME` (must differ from the writer)", Required: true},
			&cli.StringFlag{Name: "verifier-base-url", Usage: "endpoint of the verifier (default: --base-url)"},
			&cli.StringFlag{Name: "verifier-api-key-env", Usage: "the NAME of the variable holding the verifier's API key (default: --api-key-env)"},
			&cli.StringFlag{Name: "domain", Usage: "write only the tasks of `DOMAIN`"},
			&cli.BoolFlag{Name: "sample", Value: true, Usage: "show the writer one sample episode of the task (said not to be an oracle)"},
			&cli.IntFlag{Name: "concurrency", Value: 4, Usage: "requests in flight"},
			&cli.Float64Flag{Name: "price-in", Usage: "USD per million input tokens (both models)"},
			&cli.Float64Flag{Name: "price-out", Usage: "USD per million output tokens (both models)"},
			&cli.BoolFlag{Name: "retry-failed", Usage: "send again requests that failed after all retries"},
		},
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			w := modelJudge{model: c.String("model"), baseURL: c.String("base-url"), apiKeyEnv: c.String("api-key-env"),
				concurrency: c.Int("concurrency"), priceIn: c.Float64("price-in"), priceOut: c.Float64("price-out"), retryFailed: c.Bool("retry-failed")}
			v := w
			v.model = c.String("verifier-model")
			if u := c.String("verifier-base-url"); u != "" {
				v.baseURL = u
			}
			if k := c.String("verifier-api-key-env"); k != "" {
				v.apiKeyEnv = k
			}
			if v.model == w.model && v.baseURL == w.baseURL {
				return usagef("rubrics write: the verifier must be another model than the writer")
			}
			return runRubricsWrite(c, io, rubricWriteOptions{domain: c.String("domain"), sample: c.Bool("sample"), writer: w, checker: v})
		},
	}
}

// runModel sends reqs through the runner (cache, retries, cost) and
// returns each request's answer text ("" when it failed) with the keys.
func runModel(c *cli.Context, sio *streams, ws *queries.Workspace, what string, mj modelJudge, reqs []sim.Request) ([]string, []string, sim.RunStats, int, error) {
	price := sim.SimulatorConfig{PriceIn: mj.priceIn, PriceOut: mj.priceOut}
	store := sim.NewDuckStore(ws)
	bar, done := generateProgress(sio, what)
	st, err := sim.Run(c.Context, reqs, sim.NewOpenAI(sim.OpenAIConfig{BaseURL: mj.baseURL, APIKeyEnv: mj.apiKeyEnv}), store,
		sim.RunOptions{Concurrency: mj.concurrency, RetryFailed: mj.retryFailed,
			Cost:     func(_ sim.Request, r sim.Response) float64 { return price.Cost(r.TokensIn, r.TokensOut, r.ViaBatch) },
			Progress: bar})
	done()
	if err != nil {
		return nil, nil, st, 0, err
	}
	keys := sim.Keys(reqs)
	answers, err := store.Get(c.Context, keys)
	if err != nil {
		return nil, nil, st, 0, err
	}
	texts := make([]string, len(reqs))
	failed := 0
	for i, k := range keys {
		a, ok := answers[k]
		if !ok || a.Err != "" {
			failed++
			continue
		}
		texts[i] = a.Text
	}
	return texts, keys, st, failed, nil
}

func chatRequest(mj modelJudge, msgs []judge.ChatMessage, maxTokens int) sim.Request {
	zero := 0.0
	var ms []sim.Message
	for _, m := range msgs {
		ms = append(ms, sim.Message{Role: m.Role, Content: m.Content})
	}
	return sim.Request{Backend: "openai", BaseURL: mj.baseURL, Model: mj.model, Params: sim.Params{Temperature: &zero, MaxTokens: maxTokens}, Messages: ms}
}

func runRubricsWrite(c *cli.Context, sio *streams, opts rubricWriteOptions) error {
	ctx := c.Context
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	tasks, err := queries.WriteTasks(ctx, ws.Conn(), opts.domain)
	if err != nil {
		return err
	}
	if len(tasks) == 0 {
		return fmt.Errorf("rubrics write: no tasks in the workspace (ingest result files first)")
	}
	sources, err := quoteSources(ctx, ws)
	if err != nil {
		return err
	}
	inputs := make([]judge.WriterInput, len(tasks))
	reqs := make([]sim.Request, len(tasks))
	for i, t := range tasks {
		in := judge.WriterInput{Domain: t.Domain, TaskID: t.TaskID, Guidelines: t.Guidelines,
			Blueprint: judge.Blueprint{ReasonForCall: t.ReasonForCall, KnownInfo: t.KnownInfo, UnknownInfo: t.UnknownInfo,
				TaskInstructions: t.TaskInstructions, Persona: t.Persona, Instruction: t.Instruction}}
		if t.UserTools != "" {
			in.UserTools = strings.Split(t.UserTools, ",")
		}
		if opts.sample && t.SampleID != "" {
			ms, err := queries.EpisodeMessages(ctx, ws.Conn(), t.SampleID)
			if err != nil {
				return err
			}
			for _, m := range ms {
				in.Sample = append(in.Sample, judge.TranscriptLine{TurnIdx: m.TurnIdx, Role: m.Role, Text: m.Content})
			}
		}
		inputs[i] = in
		reqs[i] = chatRequest(opts.writer, judge.WriterMessages(in), 2000)
	}
	written, _, wst, wfailed, err := runModel(c, sio, ws, "rubrics write", opts.writer, reqs)
	if err != nil {
		return fmt.Errorf("rubrics write: %w", err)
	}
	version := judge.WriterPromptVersion() + " " + judge.VerifierPromptVersion()
	var rows []queries.Criterion
	type pending struct {
		task int
		cs   []judge.Criterion
	}
	var toVerify []pending
	var vreqs []sim.Request
	unparseable := 0
	for i, text := range written {
		if text == "" {
			continue
		}
		cs, perr := judge.ParseWriterAnswer(text, tasks[i].Domain, tasks[i].TaskID)
		if perr != nil {
			unparseable++
			continue
		}
		var ok []judge.Criterion
		for _, cr := range cs {
			if why := judge.CheckWritten(cr, sources); why != "" {
				row := writtenRow(cr, opts, version, "rejected", "writer check: "+why)
				row.VerifiedBy = "" // refused before the verifier saw it
				rows = append(rows, row)
				continue
			}
			ok = append(ok, cr)
		}
		if len(ok) > 0 {
			toVerify = append(toVerify, pending{i, ok})
			vreqs = append(vreqs, chatRequest(opts.checker, judge.VerifierMessages(inputs[i], ok), 2000))
		}
	}
	verdicts, _, vst, vfailed, err := runModel(c, sio, ws, "rubrics verify", opts.checker, vreqs)
	if err != nil {
		return fmt.Errorf("rubrics write: verify: %w", err)
	}
	accepted, rejected := 0, 0
	for j, p := range toVerify {
		ids := make([]string, len(p.cs))
		for k, cr := range p.cs {
			ids[k] = cr.CriterionID
		}
		var dec map[string]judge.Decision
		reason := ""
		switch {
		case verdicts[j] == "":
			reason = "verifier: the request failed"
		default:
			var perr error
			if dec, perr = judge.ParseVerifierAnswer(verdicts[j], ids); perr != nil {
				reason = "verifier: unparseable answer: " + perr.Error()
			}
		}
		for _, cr := range p.cs {
			d, ok := dec[cr.CriterionID]
			switch {
			case reason != "":
				rows = append(rows, writtenRow(cr, opts, version, "rejected", reason))
			case !ok:
				rows = append(rows, writtenRow(cr, opts, version, "rejected", "verifier gave no decision"))
			case !d.Keep:
				rows = append(rows, writtenRow(cr, opts, version, "rejected", "verifier: "+d.Reason))
			default:
				rows = append(rows, writtenRow(cr, opts, version, "accepted", ""))
			}
		}
	}
	for _, r := range rows {
		if r.Status == "accepted" {
			accepted++
		} else {
			rejected++
		}
	}
	if err := queries.PutCriteria(ctx, ws, rows); err != nil {
		return fmt.Errorf("rubrics write: store: %w", err)
	}
	fmt.Fprintf(sio.out, "%d tasks: %d criteria accepted, %d rejected (kept with the reason); writer %s (%s): %d sent, %d cached, %d failed, %d unparseable, $%.4f; verifier %s (%s): %d sent, %d cached, %d failed, $%.4f\n",
		len(tasks), accepted, rejected, opts.writer.model, judge.WriterPromptVersion(), wst.Sent, wst.Cached, wfailed, unparseable, wst.Cost,
		opts.checker.model, judge.VerifierPromptVersion(), vst.Sent, vst.Cached, vfailed, vst.Cost)
	if wfailed+vfailed > 0 {
		return fmt.Errorf("rubrics write: %d request(s) failed (--retry-failed sends the retryable ones again): %w", wfailed+vfailed, errGenerationsFailed)
	}
	return nil
}

func writtenRow(c judge.Criterion, opts rubricWriteOptions, version, status, reason string) queries.Criterion {
	return queries.Criterion{CriterionID: c.CriterionID, Domain: c.Domain, TaskID: c.TaskID, Family: c.Family, Mode: c.Mode,
		Quote: c.Quote, QuoteSource: c.QuoteSource, Text: c.Text, AppliesWhen: c.AppliesWhen, WrittenBy: opts.writer.model,
		VerifiedBy: opts.checker.model, Status: status, RejectReason: reason, PromptVersion: version, SourceFile: "rubrics write", SourceLine: 0}
}
