package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/judge/rubric"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth/democorpus"
)

// demoFidelity runs the user-fidelity study of the demo: it writes three
// simulators' tau2 result files, a rubric and a grader's verdicts
// (democorpus.WriteFidelity) and reads them through ub ingest, ub rubrics
// import and ub verdicts import, as a user's own files are read.
func demoFidelity(c *cli.Context, sio *streams, ws *queries.Workspace, demoDir, dir string) error {
	ctx := c.Context
	fmt.Fprintf(sio.out, "\n== user fidelity (tau2 episodes, rubrics, verdicts)\n")
	results, rubrics, verdicts, err := democorpus.WriteFidelity(dir)
	if rerr := recordDemoFiles(demoDir, append(results, rubrics, verdicts)...); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("demo: fidelity sample: %w", err)
	}
	st, err := ingest.Run(ctx, ws, results, ingest.Options{NewProber: newProber})
	if err != nil {
		return fmt.Errorf("demo: fidelity sample: %w", err)
	}
	fmt.Fprintf(sio.out, "episodes   %d added from %d result files\n", st.Episodes, len(results))
	sources, err := rubric.LoadQuoteSources(ctx, ws.Conn())
	if err != nil {
		return err
	}
	rf, err := rubric.ImportRubricFile(ctx, ws, rubrics, sources)
	if err == nil && len(rf.Refused) > 0 {
		err = fmt.Errorf("%s: %d lines refused", rubrics, len(rf.Refused))
	}
	if err != nil {
		return fmt.Errorf("demo: rubrics import: %w", err)
	}
	vf, err := rubric.ImportVerdictFile(ctx, ws, verdicts, "")
	if err == nil && len(vf.Refused) > 0 {
		err = fmt.Errorf("%s: %d lines refused: %v", verdicts, len(vf.Refused), vf.Refused[0])
	}
	if err != nil {
		return fmt.Errorf("demo: verdicts import: %w", err)
	}
	fmt.Fprintf(sio.out, "rubrics    %d criteria of %d tasks (%s)\nverdicts   %d of grader %s (%s)\n",
		rf.Imported, rf.Tasks, filepath.Base(rubrics), vf.Imported, democorpus.FidelityGrader, filepath.Base(verdicts))
	return nil
}
