package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/judge/rubric"
	"github.com/ub-bench/ub/sim/runner"
)

type gradeOptions struct {
	grader, domain string
	model          modelEndpoint
}

func newGradeCommand(sio *streams) *cli.Command {
	return &cli.Command{
		Name:  "grade",
		Usage: "grade every (episode, criterion) with a model, one criterion per call, blind to the simulator: pass, fail (with the failing turn) or na",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "grader", Usage: "grader `NAME` of the verdicts (default: model:MODEL)"},
			&cli.StringFlag{Name: "domain", Usage: "grade only the episodes of `DOMAIN`"},
			&cli.StringFlag{Name: "model", Usage: "the grader model `NAME` at --base-url", Required: true},
		}, requireFlags(endpointFlags("grader"), "base-url")...),
		Action: func(c *cli.Context) error {
			if _, err := args(c); err != nil {
				return err
			}
			return runGrade(c, sio, gradeOptions{grader: c.String("grader"), domain: c.String("domain"), model: endpointFromFlags(c)})
		},
	}
}

// runGrade grades through judge.Grade (the runner: nothing answered is paid
// twice). A verdict that does not parse is not stored (its raw answer stays
// in the response cache) and is counted; a request that failed leaves its
// pair ungraded and is reported.
func runGrade(c *cli.Context, sio *streams, opts gradeOptions) error {
	if err := requireAPIKey(opts.model.endpoint.APIKeyEnv); err != nil {
		return err
	}
	ws, err := openWorkspace(c, false)
	if err != nil {
		return err
	}
	defer ws.Close()
	mj := opts.model
	grader := opts.grader
	if grader == "" {
		grader = "model:" + mj.model
	}
	bar, done := generateProgress(sio, "grade "+grader)
	res, err := rubric.Grade(c.Context, ws, rubric.GradeOptions{Grader: grader, Domain: opts.domain, Model: mj.model, Endpoint: mj.endpoint,
		Step: runner.StepOptions{RetryFailed: mj.retryFailed, Progress: bar, Clock: sio.clock}})
	done()
	if err != nil {
		return err
	}
	st := res.Stats
	fmt.Fprintf(sio.out, "%d of %d (episode, criterion) graded by %s (%s, model %s): %d sent, %d cached, %d failed, $%.4f; pass %d, fail %d, na %d, unparseable %d\n",
		res.Verdicts, res.Items, grader, rubric.GradePromptVersion(), mj.model, st.Sent, st.Cached, res.Failed, st.Cost,
		res.Counts["pass"], res.Counts["fail"], res.Counts["na"], res.Counts["unparseable"])
	if res.Failed > 0 {
		return fmt.Errorf("grade: %d request(s) failed (recorded in responses; --retry-failed sends the retryable ones again): %w", res.Failed, errGenerationsFailed)
	}
	return nil
}
