package sim

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadExperiment(t *testing.T) {
	e, err := LoadExperiment("testdata/experiment.toml")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := e.Simulator("small-low")
	if s.Timeout.Duration != 30*time.Second || s.MaxAttempts != 6 || *s.Temperature != 0.7 || s.Extra["top_p"] != 0.9 {
		t.Errorf("small-low = %+v", s)
	}
	if m, _ := e.Simulator("mix"); m.Seed != 3 || m.Model != "mix" {
		t.Errorf("mix = %+v, want seed 3 from the experiment", m)
	}
	// Cells: mix 2 conditions + retrieve 3 + small-low 2 at (14, 0);
	// context adds small-low/profile at N=1, 2 (14 is the main run);
	// surface adds retrieve/noprofile at (1,0), (1,8), (14,8).
	cells := e.Cells()
	if len(cells) != 7+2+3 {
		t.Errorf("%d cells: %v", len(cells), cells)
	}
	if got := fmt.Sprint(cells[:3]); got != "[{mix noprofile 14 0} {mix profile 14 0} {retrieve noprofile 1 0}]" {
		t.Errorf("cells not sorted: %s", got)
	}
}

func TestLoadExperimentErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"syntax error names the line", "name = \"x\"\nseed = oops\n", "x.toml:2:"},
		{"unknown key", "[[simulator]]\nname = \"a\"\nbackend = \"mix\"\ntemprature = 1\n", "unknown keys: simulator.temprature"},
		{"unknown backend", "[[simulator]]\nname = \"a\"\nbackend = \"gpt\"\n", `backend "gpt" is not one of`},
		{"missing model", "[[simulator]]\nname = \"a\"\nbackend = \"openai\"\n", `simulator "a": missing model`},
		{"bad condition", "conditions = [\"loud\"]\n[[simulator]]\nname = \"a\"\nbackend = \"mix\"\n", `condition "loud"`},
		{"sweep of an unknown simulator", "[[simulator]]\nname = \"a\"\nbackend = \"mix\"\n[[sweep]]\nsimulators = [\"b\"]\n", `no simulator "b"`},
		{"no simulators", "name = \"x\"\n", "no [[simulator]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.toml")
			os.WriteFile(p, []byte(tt.text), 0o644)
			_, err := LoadExperiment(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCost(t *testing.T) {
	s := SimulatorConfig{PriceIn: 0.4, PriceOut: 1.6}
	// 1000 in at $0.4/M + 500 out at $1.6/M = 0.0004 + 0.0008 = 0.0012; batch halves it.
	if got := s.Cost(1000, 500, false); fmt.Sprintf("%.7f", got) != "0.0012000" {
		t.Errorf("live cost = %v", got)
	}
	if got := s.Cost(1000, 500, true); fmt.Sprintf("%.7f", got) != "0.0006000" {
		t.Errorf("batch cost = %v", got)
	}
}

func TestGenerationIDStable(t *testing.T) {
	a := GenerationID("mix", "p1", "profile", 14, 0, 0)
	if a != GenerationID("mix", "p1", "profile", 14, 0, 0) || a == GenerationID("mix", "p1", "profile", 1, 40, 0) || len(a) != 16 {
		t.Errorf("id %q", a)
	}
}

// TestGenerationIDTrials checks the ids of trials against sha256sum: the
// first trial keeps the id of a single-trial study (the five parts), a
// later trial hashes its index as a sixth part.
//
//	printf 'mix\0p1\0profile\00014\0000' | sha256sum | cut -c1-16        # d0c3d3b487c4973e
//	printf 'mix\0p1\0profile\00014\0000\0002' | sha256sum | cut -c1-16  # f3314ed2a0b01518
func TestGenerationIDTrials(t *testing.T) {
	if got := GenerationID("mix", "p1", "profile", 14, 0, 0); got != "d0c3d3b487c4973e" {
		t.Errorf("trial 0 id = %s, want d0c3d3b487c4973e (the single-trial id)", got)
	}
	if got := GenerationID("mix", "p1", "profile", 14, 0, 2); got != "f3314ed2a0b01518" {
		t.Errorf("trial 2 id = %s, want f3314ed2a0b01518", got)
	}
}

func TestExperimentTrials(t *testing.T) {
	for _, tc := range []struct {
		trials int
		ok     bool
		count  int
	}{{0, true, 1}, {1, true, 1}, {3, true, 3}, {MaxTrials, true, MaxTrials}, {-1, false, 0}, {MaxTrials + 1, false, 0}} {
		e := Experiment{Trials: tc.trials, Simulators: []SimulatorConfig{{Name: "mix", Backend: "mix"}}}
		err := e.Check()
		if (err == nil) != tc.ok {
			t.Errorf("trials %d: err %v, want ok %v", tc.trials, err, tc.ok)
			continue
		}
		if tc.ok && e.TrialCount() != tc.count {
			t.Errorf("trials %d: TrialCount %d, want %d", tc.trials, e.TrialCount(), tc.count)
		}
	}
}
