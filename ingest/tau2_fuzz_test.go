package ingest

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

// epCollect is an EpisodeSink that keeps everything, for tests.
type epCollect struct {
	files []*EpisodeFile
	errs  []*ParseError
}

func (c *epCollect) EpisodeFile(f *EpisodeFile) error { c.files = append(c.files, f); return nil }
func (c *epCollect) Error(e *ParseError)              { c.errs = append(c.errs, e) }

// FuzzParseEpisodes checks what must hold for any input to the tau2, tau1
// and task-file parsers: no panic; input that is not valid JSON is exactly
// one error and no file; every error names the file; every episode has an
// id, a task id, a content hash and messages with a valid role; what the
// fast pass accepts, the exact pass reads the same (checkFastAgrees).
func FuzzParseEpisodes(f *testing.F) {
	f.Add([]byte(tau2Small))
	f.Add([]byte(tau2Small[:300]))
	f.Add([]byte(`[{"task_id": 0, "trial": 0, "reward": 1.0, "traj": [{"role": "user", "content": "hi"}], "info": {"task": {"user_id": "a_b_123", "instruction": "x"}, "source": "user"}}]`))
	f.Add([]byte(`[{"task_id": null, "traj": 3}]`))
	f.Add([]byte(`[{"id": "0", "user_scenario": {"instructions": "one string"}}]`))
	f.Add([]byte(`{"info": null, "simulations": null}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		for name, pass := range passes {
			checkFastAgrees(t, name, pass, in)
		}
		for name, parse := range episodeParsers {
			var c epCollect
			if err := parse("f.json", bytes.NewReader(in), &c); err != nil {
				t.Fatal(err)
			}
			for _, e := range c.errs {
				if e.Path != "f.json" {
					t.Errorf("%s: error without the file: %v", name, e)
				}
			}
			if name == "policy" { // Markdown: any UTF-8 text is a policy
				if want := utf8.Valid(in); (len(c.files) == 1) != want || len(c.errs)+len(c.files) != 1 {
					t.Errorf("policy: %d errors and %d files (valid UTF-8: %v)", len(c.errs), len(c.files), want)
				}
				continue
			}
			if !validJSON(in) {
				if len(c.errs) != 1 || len(c.files) != 0 {
					t.Errorf("%s: invalid JSON gave %d errors and %d files", name, len(c.errs), len(c.files))
				}
				continue
			}
			for _, f := range c.files {
				for _, ep := range f.Episodes {
					if ep.SimulationID == "" || ep.TaskID == "" || len(ep.ContentHash) != 64 {
						t.Errorf("%s: episode %+v lacks id, task or hash", name, ep)
					}
					for _, m := range ep.Messages {
						switch m.Role {
						case "user", "assistant", "tool", "system":
						default:
							t.Errorf("%s: role %q stored", name, m.Role)
						}
					}
				}
			}
		}
	})
}

func validJSON(b []byte) bool { return syntaxCheck("x", b) == nil }
