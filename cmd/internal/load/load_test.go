package load

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/reports"
	"github.com/ub-bench/ub/sim/synth"
)

// fidelityWorkspace is an in-memory workspace holding the synthetic
// fidelity study (one grader, no UserBench data).
func fidelityWorkspace(t *testing.T) *queries.Workspace {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestReportLoadsTheFidelityStudy: with the zero Options the report holds
// the fidelity study of the workspace's one grader, scored, and OnJudge
// hears that
// no judge labelled anything.
func TestReportLoadsTheFidelityStudy(t *testing.T) {
	ws := fidelityWorkspace(t)
	judge, judges := "unset", -1
	rep, err := Report(context.Background(), ws, Options{OnJudge: func(j string, n int) { judge, judges = j, n }})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Holds(reports.StudyFidelity) || rep.Holds(reports.StudyUserBench) {
		t.Errorf("Holds(fidelity) = %v, Holds(userbench) = %v; want true, false", rep.Holds(reports.StudyFidelity), rep.Holds(reports.StudyUserBench))
	}
	if sims, _, ok := rep.FidelityTables(); !ok || len(sims) == 0 {
		t.Errorf("FidelityTables: %d simulators, ok %v; want the graded study loaded", len(sims), ok)
	}
	if judge != "" || judges != 0 {
		t.Errorf("OnJudge(%q, %d); want (\"\", 0): no judge labelled anything", judge, judges)
	}
}

// TestReportRefusesOptionsThatDoNotFit: a judge or a grader that gave
// nothing here is an OptionError naming it; a study the workspace does not
// hold is an error naming the study, not an OptionError.
func TestReportRefusesOptionsThatDoNotFit(t *testing.T) {
	ws := fidelityWorkspace(t)
	for _, tc := range []struct {
		name   string
		opts   Options
		option bool
		want   string
	}{
		{"unknown judge", Options{Judge: "nobody"}, true, "--judge nobody"},
		{"unknown grader", Options{Fidelity: Fidelity{Grader: "nobody"}}, true, `--grader "nobody" gave no verdicts`},
		{"study not held", Options{Studies: []string{reports.StudyUserBench}}, false, "--study userbench"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Report(context.Background(), ws, tc.opts)
			var oe *OptionError
			if err == nil || errors.As(err, &oe) != tc.option || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (an OptionError: %v); want one naming %q, an OptionError: %v", err, errors.As(err, &oe), tc.want, tc.option)
			}
		})
	}
}
