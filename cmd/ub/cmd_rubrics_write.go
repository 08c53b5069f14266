package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge/rubric"
	"github.com/ub-bench/ub/sim/runner"
)

type rubricWriteOptions struct {
	domain          string
	sample          bool
	writer, checker modelEndpoint
}

func newRubricsWriteCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "write",
		Usage: "write every task's rubric with a model (versioned writer prompt) and check it with a second model (versioned verifier prompt); rejected criteria are kept with the reason; the writer's limits, prices and retries apply to the verifier too",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "model", Usage: "the writer model `NAME`", Required: true},
			&cli.StringFlag{Name: "verifier-model", Usage: "the verifier model `NAME` (must differ from the writer)", Required: true},
			&cli.StringFlag{Name: "verifier-base-url", Usage: "endpoint of the verifier (default: --base-url)"},
			&cli.StringFlag{Name: "verifier-api-key-env", Usage: "the NAME of the variable holding the verifier's API key (default: --api-key-env)"},
			&cli.StringFlag{Name: "domain", Usage: "write only the tasks of `DOMAIN`"},
			&cli.BoolFlag{Name: "sample", Value: true, Usage: "show the writer one sample episode of the task (said not to be an oracle)"},
		}, requireFlags(endpointFlags("writer"), "base-url")...),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			w := endpointFromFlags(c)
			v := w
			v.model = c.String("verifier-model")
			if u := c.String("verifier-base-url"); u != "" {
				v.endpoint.BaseURL = u
			}
			if k := c.String("verifier-api-key-env"); k != "" {
				v.endpoint.APIKeyEnv = k
			}
			if v.model == w.model && v.endpoint.BaseURL == w.endpoint.BaseURL {
				return usagef("rubrics write: the verifier must be another model than the writer")
			}
			return runRubricsWrite(c, sio, rubricWriteOptions{domain: c.String("domain"), sample: c.Bool("sample"), writer: w, checker: v})
		},
	}
}

func runRubricsWrite(c *cli.Context, sio *streams, opts rubricWriteOptions) error {
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	res, err := rubric.WriteRubrics(c.Context, ws, rubric.RubricWriteOptions{Domain: opts.domain, Sample: opts.sample,
		WriterModel: opts.writer.model, VerifierModel: opts.checker.model, Writer: opts.writer.endpoint, Verifier: opts.checker.endpoint,
		Step:     runner.StepOptions{RetryFailed: opts.writer.retryFailed, Clock: sio.clock},
		Progress: func(stage string) (func(runner.RunStats), func()) { return generateProgress(sio, stage) }})
	if err != nil {
		return err
	}
	wst, vst := res.Writer, res.Verifier
	fmt.Fprintf(sio.out, "%d tasks: %d criteria accepted, %d rejected (kept with the reason); writer %s (%s): %d sent, %d cached, %d failed, %d unparseable, $%.4f; verifier %s (%s): %d sent, %d cached, %d failed, $%.4f\n",
		res.Tasks, res.Accepted, res.Rejected, opts.writer.model, rubric.WriterPromptVersion(), wst.Sent, wst.Cached, res.WriterFailed, res.Unparseable, wst.Cost,
		opts.checker.model, rubric.VerifierPromptVersion(), vst.Sent, vst.Cached, res.VerifierFailed, vst.Cost)
	if failed := res.WriterFailed + res.VerifierFailed; failed > 0 {
		return fmt.Errorf("rubrics write: %d request(s) failed (--retry-failed sends the retryable ones again): %w", failed, errGenerationsFailed)
	}
	return nil
}
