package ingest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
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

// TestStreamContentHashes: decoding each simulation straight from the
// stream, the parsers still hash the exact bytes it is written with (what
// json.Decoder gives as a json.RawMessage), so a workspace filled before
// streaming finds its episodes unchanged: tau2Small and two corpus files,
// one of each format.
func TestStreamContentHashes(t *testing.T) {
	root := corpusDir(t, "tau2")
	inputs := map[string][]byte{"small.json": []byte(tau2Small)}
	for _, rel := range []string{"results/telecom__agent-gpt-4o__user-gpt-4o__20tasks.json", "tau_trait/telecom__agent-gpt-5__user-trait-none.json"} {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		inputs[rel] = data
	}
	for name, data := range inputs {
		format := DetectEpisodes(data[:min(len(data), headSize)])
		var c epCollect
		if err := episodeParsers[format](name, bytes.NewReader(data), &c); err != nil || len(c.files) != 1 {
			t.Fatalf("%s: %v, %d files", name, err, len(c.files))
		}
		elems := data
		if format == FormatTau2 {
			var top struct {
				Simulations json.RawMessage `json:"simulations"`
			}
			if err := json.Unmarshal(data, &top); err != nil {
				t.Fatal(err)
			}
			elems = top.Simulations
		}
		want := map[int]string{}
		dec := json.NewDecoder(bytes.NewReader(elems))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		for i := 0; dec.More(); i++ {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			want[i] = sha(raw)
		}
		if len(c.files[0].Episodes) == 0 {
			t.Fatalf("%s: no episodes", name)
		}
		for _, e := range c.files[0].Episodes {
			if e.ContentHash != want[e.SourceIndex] {
				t.Errorf("%s: simulation %d hashed %s, its bytes hash %s", name, e.SourceIndex, e.ContentHash, want[e.SourceIndex])
			}
		}
	}
}
