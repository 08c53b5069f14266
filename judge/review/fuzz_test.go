package review

import (
	"strings"
	"testing"

	"github.com/ub-bench/ub/queries"
)

// checkParsed: whatever the input, every decision a parser returns is one
// SaveDecision would store: a known outcome consistent with its errors, and
// codes and severities from the codebook.
func checkParsed(t *testing.T, ds []queries.Decision) {
	for _, d := range ds {
		switch d.Outcome {
		case queries.OutcomeNoError, queries.OutcomeFailed:
			if len(d.Errors) != 0 {
				t.Fatalf("%s: %s with errors", d.SimulationID, d.Outcome)
			}
		case queries.OutcomeError:
			if len(d.Errors) == 0 {
				t.Fatalf("%s: error without errors", d.SimulationID)
			}
		default:
			t.Fatalf("%s: outcome %q", d.SimulationID, d.Outcome)
		}
		for _, e := range d.Errors {
			if !ValidCode(e.Code) || !ValidSeverity(e.Severity) {
				t.Fatalf("%s: code %q severity %q", d.SimulationID, e.Code, e.Severity)
			}
		}
		if d.SimulationID == "" {
			t.Fatal("decision without a simulation id")
		}
	}
}

func FuzzParseLabelsCSV(f *testing.F) {
	f.Add("simulation_id,has_error,code,severity,turn_idx,note\na,yes,hallucination,critical_helped,3,x\nb,no,,,,\n")
	f.Add("simulation_id,error_source,error_subtype\na,user,hallucination\nb,agent,vad\nc,unresolved,\n")
	f.Add("simulation_id,has_error\n\"a,1\n")
	f.Fuzz(func(t *testing.T, in string) {
		ds, _, errs := ParseLabelsCSV("f.csv", strings.NewReader(in), "r", importTime)
		if errs != nil && ds != nil {
			t.Fatal("decisions returned with errors")
		}
		checkParsed(t, ds)
	})
}

func FuzzParseUserOnlyReviews(f *testing.F) {
	f.Add(`{"simulations": [{"id": "a", "user_only_review": {"user_error": true, "errors": [{"turn_idx": 1, "error_tags": ["x"], "severity": "critical"}]}}]}`)
	f.Add(`{"simulations": [{"id": "a", "user_only_review": {"errors": [{"turn_idx": -1}]}}, {"id": "b"}]}`)
	f.Add(`{"simulations": null}`)
	f.Fuzz(func(t *testing.T, in string) {
		ds, _, err := ParseUserOnlyReviews("f.json", strings.NewReader(in), "llm", importTime)
		if err != nil && ds != nil {
			t.Fatal("decisions returned with an error")
		}
		checkParsed(t, ds)
	})
}
