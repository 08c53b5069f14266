package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// compareDoc is the part of ub compare --json these tests read.
type compareDoc struct {
	Study   string `json:"study"`
	Judged  bool   `json:"judged"`
	Metrics []struct {
		Metric string `json:"metric"`
		Diff   struct {
			Estimate, Lo, Hi *float64
		} `json:"b_minus_a"`
		P *float64 `json:"p"`
	} `json:"metrics"`
	Check *struct {
		Regressed bool `json:"regressed"`
	} `json:"regression_check"`
}

// compareJSON runs ub compare --json with args and returns its exit code
// and document.
func compareJSON(t *testing.T, db string, args ...string) (int, compareDoc) {
	t.Helper()
	code, out, errs := ubRun(append([]string{"--db", db, "compare", "--json"}, args...)...)
	var d compareDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("compare %v: exit %d, %v: %s%s", args, code, err, out, errs)
	}
	return code, d
}

// TestComparePlantedUserBench: on ub synth --seed 3, ub compare finds the
// planted profile effect of the simulator with the strongest planted lift
// (its noprofile against its profile condition: the interval of B - A
// excludes zero and holds the planted lift), calls the reverse a
// regression (exit 8) at a margin below the effect, and finds no
// regression between a simulator and itself, nor on a planted near-null
// (the two reasoning efforts of one model without profile, +0.001).
func TestComparePlantedUserBench(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "ub.duckdb")
	if code, _, e := ubRun("--db", db, "synth", "--seed", "3"); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, e)
	}
	planted := map[string]synth.Simulator{}
	var top synth.Simulator
	for _, s := range synth.Planted() {
		planted[s.Name] = s
		if s.Lift() > top.Lift() || top.Name == "" {
			top = s
		}
	}
	code, d := compareJSON(t, db, top.Name+"@"+queries.CondNoProfile, top.Name+"@"+queries.CondProfile)
	m := d.Metrics[0]
	if code != 0 || d.Study != "userbench" || !d.Judged || m.Metric != "accuracy" || m.Diff.Lo == nil || m.P == nil {
		t.Fatalf("%s profile effect: exit %d, %+v", top.Name, code, d)
	}
	if !(*m.Diff.Lo > 0 && *m.Diff.Lo <= top.Lift() && top.Lift() <= *m.Diff.Hi) || *m.P >= 0.05 {
		t.Errorf("%s: B - A = %v [%v, %v], p = %v; want an interval above 0 holding the planted lift %.3f and p < .05",
			top.Name, *m.Diff.Estimate, *m.Diff.Lo, *m.Diff.Hi, *m.P, top.Lift())
	}
	if code, d := compareJSON(t, db, "--fail-on-regression", "0.02", top.Name+"@"+queries.CondProfile, top.Name+"@"+queries.CondNoProfile); code != exitRegression || !d.Check.Regressed {
		t.Errorf("profile -> noprofile at margin 0.02: exit %d, %+v; want %d", code, d.Check, exitRegression)
	}
	if code, d := compareJSON(t, db, "--fail-on-regression", "0", "gpt-5.5", "gpt-5.5"); code != 0 || d.Check.Regressed || *d.Metrics[0].Diff.Hi != 0 {
		t.Errorf("gpt-5.5 against itself: exit %d, %+v", code, d)
	}
	lo, hi := planted["deepseek-v4-pro"].Conditions[queries.CondNoProfile], planted["deepseek-v4-pro-max"].Conditions[queries.CondNoProfile]
	code, d = compareJSON(t, db, "--fail-on-regression", "0.02", "deepseek-v4-pro", "deepseek-v4-pro-max")
	if m := d.Metrics[0]; code != 0 || d.Check.Regressed || !(*m.Diff.Lo <= hi.Accuracy-lo.Accuracy && hi.Accuracy-lo.Accuracy <= *m.Diff.Hi) {
		t.Errorf("planted %+.3f: exit %d, B - A [%v, %v]", hi.Accuracy-lo.Accuracy, code, *m.Diff.Lo, *m.Diff.Hi)
	}
}

// TestComparePlantedFidelity: on ub synth --study fidelity, the planted
// UFS gap of gemma-4-26b below gemma-4-31b (0.550 against 0.850) is found
// with its interval and an exact McNemar p, is a regression at margin 0.1,
// and a simulator against itself is not.
func TestComparePlantedFidelity(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "fid.duckdb")
	if code, _, e := ubRun("--db", db, "synth", "--study", "fidelity"); code != 0 {
		t.Fatalf("synth: exit %d: %s", code, e)
	}
	ufs := map[string]float64{}
	for _, s := range synth.FidelitySims {
		ufs[s.Name] = s.UFS
	}
	want := ufs["gemma-4-26b"] - ufs["gemma-4-31b"]
	code, d := compareJSON(t, db, "--fail-on-regression", "0.1", "gemma-4-31b", "gemma-4-26b")
	m := d.Metrics[0]
	if code != exitRegression || d.Study != "fidelity" || !d.Check.Regressed || m.Metric != "ufs" || m.Diff.Hi == nil {
		t.Fatalf("exit %d, %+v", code, d)
	}
	if !(*m.Diff.Lo <= want && want <= *m.Diff.Hi && *m.Diff.Hi < 0) || *m.P >= 0.001 {
		t.Errorf("B - A UFS = [%v, %v], p %v; want below 0, holding the planted %.3f, p < .001", *m.Diff.Lo, *m.Diff.Hi, *m.P, want)
	}
	if code, d := compareJSON(t, db, "--fail-on-regression", "0", "user_simulator:sonnet-4-6@t1", "sonnet-4-6"); code != 0 || d.Check.Regressed || *d.Metrics[0].P != 1 {
		t.Errorf("sonnet-4-6 against itself: exit %d, %+v", code, d)
	}
}
