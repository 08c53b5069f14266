package ingest

import (
	"bytes"
	"testing"
)

// TestStreamSyntaxErrorAsWholeFile: the parsers read a file value by value
// (jsonStream), yet a file that is not valid JSON is one error, no file,
// and the very error (line and reason) that checking the whole file with
// json.Unmarshal gives (syntaxCheck, what they did before streaming): for
// every cut, every inserted "x" and every deleted byte of a tau2 file, a
// tau-bench v1 array and a task file.
func TestStreamSyntaxErrorAsWholeFile(t *testing.T) {
	srcs := map[string]string{
		FormatTau2: tau2Small,
		FormatTau1: `[{"task_id": 0, "trial": 0, "reward": 1.0, "traj": [{"role": "user", "content": "hi"}], "info": {"task": {"user_id": "a_b_123", "instruction": "x"}, "source": "user"}},
 {"task_id": 1, "traj": [], "n": [true, null, -1.5e3]}]`,
		"tasks": `[{"id": "0", "user_scenario": {"instructions": "one string"}},
  {"id": 1, "evaluation_criteria": {"actions": [{"name": "a", "arguments": {"k": false}}]}}]`,
	}
	checked := 0
	for format, src := range srcs {
		parse := episodeParsers[format]
		for i := 0; i <= len(src); i++ {
			for _, in := range []string{src[:i], src[:i] + "x" + src[i:], src[:i] + src[min(i+1, len(src)):]} {
				want := syntaxCheck("f.json", []byte(in))
				if want == nil {
					continue
				}
				checked++
				var c epCollect
				if err := parse("f.json", bytes.NewReader([]byte(in)), &c); err != nil {
					t.Fatal(err)
				}
				if len(c.errs) != 1 || len(c.files) != 0 {
					t.Errorf("%s %q: %d errors and %d files, want one error", format, in, len(c.errs), len(c.files))
					continue
				}
				if got := c.errs[0].Error(); got != want.Error() {
					t.Errorf("%s %q:\n got  %s\n want %s", format, in, got, want)
				}
			}
		}
	}
	if checked < 1000 {
		t.Errorf("only %d invalid inputs checked", checked)
	}
}
