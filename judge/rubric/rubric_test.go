package rubric

import (
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"You don\u2019t  want\u00a0**this**", "you don't want this"},
		{"\uff21BC\u202fd", "abc d"},               // NFKC: fullwidth A; U+202F as a space
		{"STRASSE Stra\u00dfe", "strasse strasse"}, // full case folding: sharp s
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseRubrics(t *testing.T) {
	src := func(domain, task, source string) ([]string, bool) {
		if domain != "airline" || task != "0" {
			return nil, false
		}
		switch source {
		case "known_info":
			return []string{"Your user id is  emma_kim_9957."}, true
		case "guidelines":
			return []string{"Disclose information **progressively**."}, true
		}
		return nil, true
	}
	line := func(id, family, mode, quote, source string) string {
		return `{"task_id": "0", "domain": "airline", "criterion_id": "` + id + `", "family": "` + family + `", "mode": "` + mode +
			`", "quote": "` + quote + `", "quote_source": "` + source + `", "text": "t"}`
	}
	in := strings.Join([]string{
		line("c1", "disclosure", "volunteers_unasked_info", "your user id is emma_kim_9957", "known_info"),
		line("c2", "disclosure", "volunteers_unasked_info", "Disclose information progressively", "guidelines"),
		line("c3", "disclosure", "volunteers_unasked_info", "emma_kim_1111", "known_info"),
		line("c4", "goal_deviation", "volunteers_unasked_info", "emma", "known_info"),
		"",
		line("c1", "disclosure", "volunteers_unasked_info", "emma", "known_info"),
		`{"task_id": "0", "oops": 1}`,
		line("c5", "disclosure", "new_mode", "emma", "known_info"),
		strings.Replace(line("c6", "disclosure", "x", "emma", "known_info"), `"0"`, `"9"`, 1),
	}, "\n")
	got, err := ParseRubrics(strings.NewReader(in), "r.jsonl", src)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range got.Criteria {
		ids = append(ids, c.CriterionID)
	}
	if strings.Join(ids, ",") != "c1,c2,c5" {
		t.Errorf("accepted %v, want c1,c2,c5", ids)
	}
	wantRefused := []string{
		"r.jsonl:3: criterion c3: quote",
		"r.jsonl:4: criterion c4: mode volunteers_unasked_info belongs to family disclosure",
		"r.jsonl:6: criterion c1 already given on line 1",
		"r.jsonl:7: bad JSON",
		"r.jsonl:9: criterion c6: task airline/9 is not in the workspace",
	}
	if len(got.Refused) != len(wantRefused) {
		t.Fatalf("refused %v, want %d", got.Refused, len(wantRefused))
	}
	for i, w := range wantRefused {
		if !strings.HasPrefix(got.Refused[i].Error(), w) {
			t.Errorf("refused[%d] = %q, want prefix %q", i, got.Refused[i].Error(), w)
		}
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], "task airline/0 has 3 criteria") {
		t.Errorf("warnings %v", got.Warnings)
	}
}

func TestParseVerdicts(t *testing.T) {
	in := `{"simulation_id": "s1", "criterion_id": "c1", "verdict": "fail", "turn_idx": 3, "reason": "r", "grader": "g1"}
{"simulation_id": "s1", "criterion_id": "c2", "verdict": "pass", "turn_idx": null, "reason": "r", "grader": "g1"}
{"simulation_id": "s1", "criterion_id": "c2", "verdict": "pass", "turn_idx": null, "reason": "r", "grader": "g1"}
{"simulation_id": "s1", "criterion_id": "c3", "verdict": "maybe", "reason": "r", "grader": "g1"}
{"simulation_id": "s1", "criterion_id": "c4", "verdict": "na", "turn_idx": 2, "reason": "r", "grader": "g1"}
{"simulation_id": "s1", "criterion_id": "c5", "verdict": "na", "reason": "r"}`
	got, err := ParseVerdicts(strings.NewReader(in), "v.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Verdicts) != 2 || *got.Verdicts[0].TurnIdx != 3 || got.Verdicts[1].TurnIdx != nil {
		t.Errorf("verdicts %+v", got.Verdicts)
	}
	want := []string{"v.jsonl:3: verdict of c2", "v.jsonl:4: verdict \"maybe\"", "v.jsonl:5: turn_idx 2 given for a na", "v.jsonl:6: missing \"grader\""}
	if len(got.Refused) != len(want) {
		t.Fatalf("refused %v", got.Refused)
	}
	for i, w := range want {
		if !strings.HasPrefix(got.Refused[i].Error(), w) {
			t.Errorf("refused[%d] = %q, want prefix %q", i, got.Refused[i].Error(), w)
		}
	}
	// --grader names every line's grader.
	got, _ = ParseVerdicts(strings.NewReader(in), "v.jsonl", "other")
	if len(got.Verdicts) != 3 || got.Verdicts[2].Grader != "other" {
		t.Errorf("with grader: %+v", got.Verdicts)
	}
}

// TestLongAndInvalidLinesRefused: in a rubrics and a verdicts file, a line
// longer than MaxLineBytes and a line that is not valid UTF-8 are each
// refused with file:line (the limit in words), and the lines after them
// are read.
func TestLongAndInvalidLinesRefused(t *testing.T) {
	defer func(n int) { MaxLineBytes = n }(MaxLineBytes)
	MaxLineBytes = 4 << 10
	long := `{"simulation_id": "s1", "criterion_id": "c1", "verdict": "pass", "reason": "` + strings.Repeat("x", 5000) + `", "grader": "g"}`
	good := `{"simulation_id": "s1", "criterion_id": "c2", "verdict": "pass", "reason": "r", "grader": "g"}`
	bad := "{\"simulation_id\": \"s1\", \"criterion_id\": \"c3\", \"verdict\": \"pass\", \"reason\": \"caf\xe9\", \"grader\": \"g\"}"
	in := long + "\n" + good + "\n" + bad + "\n"
	got, err := ParseVerdicts(strings.NewReader(in), "v.jsonl", "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"v.jsonl:1: line longer than the limit of 4 KiB", "v.jsonl:3: not valid UTF-8 (byte 80)"}
	if len(got.Verdicts) != 1 || got.Verdicts[0].CriterionID != "c2" || len(got.Refused) != 2 {
		t.Fatalf("verdicts %+v, refused %v", got.Verdicts, got.Refused)
	}
	for i, w := range want {
		if got.Refused[i].Error() != w {
			t.Errorf("refused[%d] = %q, want %q", i, got.Refused[i].Error(), w)
		}
	}
	rub := strings.Repeat(" ", 5000) + "{}\n" + "{\"task_id\": \"1\", \"domain\": \"d\", \"criterion_id\": \"\xff\"}\n"
	r, err := ParseRubrics(strings.NewReader(rub), "r.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Refused) != 2 || r.Refused[0].Error() != "r.jsonl:1: line longer than the limit of 4 KiB" || !strings.HasPrefix(r.Refused[1].Error(), "r.jsonl:2: not valid UTF-8") {
		t.Errorf("rubrics refused %v", r.Refused)
	}
}
