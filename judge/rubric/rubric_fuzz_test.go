package rubric

import (
	"strings"
	"testing"
)

// FuzzParseRubrics: no input panics; every accepted criterion has its
// fields and a line number, every refusal names the file and a line.
func FuzzParseRubrics(f *testing.F) {
	f.Add(`{"task_id": "0", "domain": "airline", "criterion_id": "c1", "family": "disclosure", "mode": "volunteers_unasked_info", "quote": "id", "quote_source": "known_info", "text": "t"}`)
	f.Add("{\n}\n[1]\n")
	src := func(domain, task, source string) ([]string, bool) { return []string{"your user id is x"}, true }
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseRubrics(strings.NewReader(in), "f.jsonl", src)
		if err != nil {
			return
		}
		for _, c := range got.Criteria {
			if c.Line < 1 || c.CriterionID == "" || c.Quote == "" {
				t.Fatalf("accepted %+v", c)
			}
		}
		for _, r := range got.Refused {
			if r.File != "f.jsonl" || r.Line < 1 {
				t.Fatalf("refusal %+v", r)
			}
		}
	})
}

// FuzzParseVerdicts: no input panics; accepted verdicts are well-formed.
func FuzzParseVerdicts(f *testing.F) {
	f.Add(`{"simulation_id": "s", "criterion_id": "c", "verdict": "fail", "turn_idx": 2, "reason": "r", "grader": "g"}`)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseVerdicts(strings.NewReader(in), "v.jsonl", "")
		if err != nil {
			return
		}
		for _, v := range got.Verdicts {
			if (v.Verdict != "pass" && v.Verdict != "fail" && v.Verdict != "na") || (v.TurnIdx != nil && (v.Verdict != "fail" || *v.TurnIdx < 0)) {
				t.Fatalf("accepted %+v", v)
			}
		}
	})
}

// FuzzParseGrade: no answer panics; a parsed answer is a valid verdict.
func FuzzParseGrade(f *testing.F) {
	f.Add(`{"verdict": "fail", "turn_idx": 3, "reason": "r"}`)
	f.Add("```json\n{\"verdict\": \"na\"}\n```")
	f.Fuzz(func(t *testing.T, in string) {
		v, turn, _, err := ParseGrade(in)
		if err != nil {
			return
		}
		if (v == "fail") != (turn != nil) || (v != "pass" && v != "fail" && v != "na") {
			t.Fatalf("%q -> %q %v", in, v, turn)
		}
	})
}
