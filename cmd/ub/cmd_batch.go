package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/reports/visible"
	"github.com/ub-bench/ub/sim/runner"
)

func newBatchCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "batch",
		Usage: "provider batch files (OpenAI Batch, Anthropic Message Batches)",
		Subcommands: []*cli.Command{{
			Name:      "import",
			Usage:     "store a provider's batch results under the same keys a live run uses; then ub generate makes the generations",
			ArgsUsage: "RESULT_FILE...",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "provider", Usage: "openai|anthropic"},
				&cli.StringSliceFlag{Name: "keys", Usage: "the .keys.jsonl file(s) ub generate --batch-write wrote"},
			},
			Action: func(c *cli.Context) error {
				a, err := args(c)
				if err != nil {
					return err
				}
				if len(a) == 0 || len(c.StringSlice("keys")) == 0 {
					return usagef("batch import: give --keys FILE and at least one RESULT_FILE")
				}
				return runBatchImport(c, sio, runner.BatchProvider(c.String("provider")), c.StringSlice("keys"), a)
			},
		}},
	}
}

func runBatchImport(c *cli.Context, sio *streams, provider runner.BatchProvider, keyFiles, results []string) error {
	if err := requireInputFiles("batch import", append(append([]string{}, keyFiles...), results...)...); err != nil {
		return err
	}
	if provider != runner.OpenAIBatch && provider != runner.AnthropicBatch {
		return usagef("batch import: --provider %q: want openai or anthropic", provider)
	}
	keys, err := runner.ReadBatchKeys(keyFiles...)
	if err != nil {
		return fmt.Errorf("batch import: %w", err)
	}
	ws, err := createWorkspace(c)
	if err != nil {
		return err
	}
	defer ws.Close()
	st, err := runner.ImportBatchResults(c.Context, provider, keys, runner.NewDuckStore(ws), results...)
	if err != nil {
		return fmt.Errorf("batch import: %w", err)
	}
	for _, p := range st.Problems {
		fmt.Fprintln(sio.err, visible.Line(p))
	}
	fmt.Fprintf(sio.out, "%d result lines: %d answered, %d failed permanently, %d failed (retryable), %d already answered, %d keys without a result; %d/%d tokens\n",
		st.Lines, st.Answered, st.FailedPermanent, st.FailedRetryable, st.AlreadyAnswered, st.Missing, st.TokensIn, st.TokensOut)
	if len(st.Problems) > 0 {
		return badInputf("batch import: %d bad line(s): %s", len(st.Problems), strings.Join(results, " "))
	}
	return nil
}
