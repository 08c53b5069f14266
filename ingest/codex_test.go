package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ub-bench/ub"
)

// cxParse runs parse over data as if read from path.
func cxParse(t testing.TB, parse ParseFunc, path string, data []byte) *collect {
	t.Helper()
	var c collect
	if err := parse(Source{Path: path, R: bytes.NewReader(data)}, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &c
}

func cxReadFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// cxDigest renders a turn as "role[!]: text", ! marking a command, for
// comparing whole sessions at a glance.
func cxDigest(s *ub.Session) []string {
	var out []string
	for _, t := range s.Turns {
		mark := ""
		if t.IsCommand {
			mark = "!"
		}
		out = append(out, string(t.Role)+mark+": "+t.Text)
	}
	return out
}

func cxTexts(s *ub.Session, r ub.Role) []string {
	var out []string
	for _, t := range s.Turns {
		if t.Role == r {
			out = append(out, t.Text)
		}
	}
	return out
}

func cxOne(t *testing.T, c *collect) *ub.Session {
	t.Helper()
	if len(c.sessions) != 1 {
		t.Fatalf("got %d sessions (errors %v, skips %v), want 1", len(c.sessions), c.errs, c.skips)
	}
	return c.sessions[0]
}

func cxNoErrors(t *testing.T, c *collect) {
	t.Helper()
	for _, e := range c.errs {
		t.Errorf("unexpected error: %v", e)
	}
}

// cxWantError checks that c holds exactly one error, at line, mentioning frag.
func cxWantError(t *testing.T, c *collect, line int, frag string) {
	t.Helper()
	if len(c.errs) != 1 {
		t.Fatalf("got errors %v, want one at line %d", c.errs, line)
	}
	e := c.errs[0]
	if e.Line != line || !strings.Contains(e.Reason, frag) {
		t.Errorf("got error %v, want line %d with %q", e, line, frag)
	}
}

// cxCutInside cuts s in the middle of the first occurrence of the
// multi-byte character r, as a writer killed mid-write would.
func cxCutInside(s, r string) string {
	return s[:strings.Index(s, r)+1]
}

// codexLine builds one rollout line.
func codexLine(ts, typ string, payload any) string {
	b, err := json.Marshal(map[string]any{"timestamp": ts, "type": typ, "payload": payload})
	if err != nil {
		panic(err)
	}
	return string(b)
}

const codexTestMeta = `{"timestamp":"2025-03-01T10:00:00.000Z","type":"session_meta","payload":{"id":"s-1","timestamp":"2025-03-01T10:00:00.000Z","cwd":"/w"}}`

func codexUser(text string) string {
	return codexLine("2025-03-01T10:00:01Z", "event_msg", map[string]any{"type": "user_message", "message": text, "images": []any{}})
}

func TestParseCodex(t *testing.T) {
	dir := filepath.Join("testdata", "codex")
	big := strings.Repeat("é", codexToolTextMax) // 2 bytes each: twice the cap
	tests := []struct {
		name  string
		file  string // under testdata/codex, or
		data  string // inline input
		check func(t *testing.T, c *collect)
	}{
		{
			name: "session fields come from session_meta and turn_context",
			file: "session.jsonl",
			check: func(t *testing.T, c *collect) {
				cxNoErrors(t, c)
				s := cxOne(t, c)
				if s.ID != "0190aaaa-bbbb-7ccc-8ddd-000000000001" || s.Format != "codex" ||
					s.Repo != "/home/ana/src/kettle" || s.Developer != "" || s.Line != 1 ||
					s.SourceFile != filepath.Join(dir, "session.jsonl") {
					t.Errorf("got ID %q Format %q Repo %q Developer %q Line %d SourceFile %q",
						s.ID, s.Format, s.Repo, s.Developer, s.Line, s.SourceFile)
				}
				// The payload timestamp, not the line's (10:00:00.000).
				if want := time.Date(2025, 3, 1, 9, 59, 59, 500e6, time.UTC); !s.StartedAt.Equal(want) {
					t.Errorf("StartedAt = %v, want %v", s.StartedAt, want)
				}
				got, _ := json.Marshal(s.Meta)
				want := `{"cli_version":"0.60.0","git":{"branch":"main","commit_hash":"abc123"},` +
					`"model":"gpt-5-codex","model_context_window":200000,"model_provider":"openai",` +
					`"models":["gpt-5-codex","gpt-5"],"originator":"codex_cli_rs","source":"cli",` +
					`"token_usage":{"input_tokens":3000,"output_tokens":1000,"total_tokens":4000}}`
				if string(got) != want {
					t.Errorf("Meta =\n%s\nwant\n%s", got, want)
				}
			},
		},
		{
			name: "turns come in file order without duplicate user and assistant messages",
			file: "session.jsonl",
			check: func(t *testing.T, c *collect) {
				s := cxOne(t, c)
				want := []string{
					"system: <user_instructions>\nAlways run go test.\n</user_instructions>",
					"system: <environment_context>\n  <cwd>/home/ana/src/kettle</cwd>\n</environment_context>",
					"system: You are running in a sandbox.",
					"developer: the kettle test fails, fix it",
					`tool: shell {"command": ["bash", "-lc", "go test ./..."], "workdir": "/home/ana/src/kettle"}`,
					"tool: --- FAIL: TestBoil\n",
					"tool: apply_patch *** Begin Patch\n*** Update File: boil.go\n@@\n-return 99\n+return 100\n*** End Patch",
					"tool: Success. Updated the following files:\nM boil.go\n",
					"tool: update_plan not json {",
					"tool: Plan updated",
					"agent: Fixed: Boil now returns 100, and go test passes.",
					"developer!: /review",
					"agent: The change looks right.",
					"developer: what is wrong in this screenshot?\n[image]",
					"agent: The label is cut off.",
					"developer: rename Boil to Heat everywhere",
					"agent: Renamed.",
					"developer: and now commit it",
					"developer!: add a --verbose flag",
					"agent: Added --verbose.",
					"developer!: [custom prompt]",
				}
				if got := cxDigest(s); !reflect.DeepEqual(got, want) {
					t.Errorf("turns:\n%q\nwant\n%q", got, want)
				}
				for i, tu := range s.Turns {
					if tu.TS.IsZero() {
						t.Errorf("turn %d has no timestamp", i)
					}
				}
			},
		},
		{
			name: "wrappers stripped from typed text are named in Meta",
			file: "session.jsonl",
			check: func(t *testing.T, c *collect) {
				s := cxOne(t, c)
				metas := map[string]string{}
				for _, tu := range s.Turns {
					if tu.Role == ub.RoleDeveloper || tu.Role == ub.RoleSystem {
						b, _ := json.Marshal(tu.Meta)
						metas[tu.Text] = string(b)
					}
				}
				for text, want := range map[string]string{
					"the kettle test fails, fix it": "null",
					"/review":                       "null",
					"what is wrong in this screenshot?\n[image]":                     `{"images":1}`,
					"rename Boil to Heat everywhere":                                 `{"ide_context":true}`,
					"and now commit it":                                              `{"stripped":["environment_context"]}`,
					"add a --verbose flag":                                           `{"custom_prompt":{"template_bytes":168}}`,
					"You are running in a sandbox.":                                  `{"injected":"developer_instructions"}`,
					"<user_instructions>\nAlways run go test.\n</user_instructions>": `{"injected":"user_instructions"}`,
				} {
					if metas[text] != want {
						t.Errorf("Meta of %q = %s, want %s", text, metas[text], want)
					}
				}
			},
		},
		{
			name: "tool calls carry name, call id and parsed arguments; results carry call id, name and exit code",
			file: "session.jsonl",
			check: func(t *testing.T, c *collect) {
				s := cxOne(t, c)
				var got []string
				for _, tu := range s.Turns {
					if tu.Role == ub.RoleTool {
						b, _ := json.Marshal(tu.Meta)
						got = append(got, string(b))
					}
				}
				want := []string{
					`{"tool_call":{"arguments":{"command":["bash","-lc","go test ./..."],"workdir":"/home/ana/src/kettle"},"call_id":"call_1","name":"shell"}}`,
					`{"tool_result":{"call_id":"call_1","exit_code":1,"name":"shell"}}`,
					`{"tool_call":{"arguments":"*** Begin Patch\n*** Update File: boil.go\n@@\n-return 99\n+return 100\n*** End Patch\n","call_id":"call_2","name":"apply_patch"}}`,
					`{"tool_result":{"call_id":"call_2","exit_code":0,"name":"apply_patch"}}`,
					`{"tool_call":{"arguments":"not json {","call_id":"call_3","name":"update_plan"}}`,
					`{"tool_result":{"call_id":"call_3","name":"update_plan"}}`,
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("tool metas:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			},
		},
		{
			name: "reasoning is dropped",
			file: "session.jsonl",
			check: func(t *testing.T, c *collect) {
				for _, tu := range cxOne(t, c).Turns {
					if strings.Contains(tu.Text, "Looking at the test") || strings.Contains(tu.Text, "gAAAA") {
						t.Errorf("reasoning kept: %s: %q", tu.Role, tu.Text)
					}
				}
			},
		},
		{
			name: "truncated last line is reported and the rest is kept",
			file: "truncated.jsonl",
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 10, "truncated JSON line")
				s := cxOne(t, c)
				if got := s.DeveloperTurns(); got != 1 {
					t.Errorf("DeveloperTurns = %d, want 1", got)
				}
			},
		},
		{
			name: "last line cut inside a character is a truncated line, not a bad file",
			data: codexTestMeta + "\n" + codexUser("hi") + "\n" + cxCutInside(codexUser("naïve"), "ï"),
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 3, "truncated JSON line")
				if got := cxTexts(cxOne(t, c), ub.RoleDeveloper); !reflect.DeepEqual(got, []string{"hi"}) {
					t.Errorf("developer texts %q", got)
				}
			},
		},
		{
			name: "bad line in the middle is reported with its line and skipped",
			file: "bad_line.jsonl",
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 7, "invalid JSON")
				s := cxOne(t, c)
				if got := len(s.Turns); got != 5 {
					t.Errorf("got %d turns, want 5 (3 system, developer, agent)", got)
				}
			},
		},
		{
			name: "invalid UTF-8 rejects the file",
			file: "invalid_utf8.jsonl",
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 2, "invalid UTF-8 (byte 107)") // the line's first bad byte, counted by hand
				if len(c.sessions) != 0 {
					t.Errorf("got %d sessions, want none", len(c.sessions))
				}
			},
		},
		{
			name: "NUL byte rejects the file",
			file: "nul.jsonl",
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 3, "NUL")
				if len(c.sessions) != 0 {
					t.Errorf("got %d sessions, want none", len(c.sessions))
				}
			},
		},
		{
			name: "session without developer message is skipped",
			file: "no_developer.jsonl",
			check: func(t *testing.T, c *collect) {
				cxNoErrors(t, c)
				if len(c.sessions) != 0 || c.skips["no developer message"] != 1 {
					t.Errorf("sessions %d skips %v", len(c.sessions), c.skips)
				}
			},
		},
		{
			name: "file without session_meta is reported",
			file: "no_meta.jsonl",
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 0, "missing session_meta")
				if len(c.sessions) != 0 {
					t.Errorf("got %d sessions, want none", len(c.sessions))
				}
			},
		},
		{
			name: "old layout without events falls back to response items",
			file: "legacy.jsonl",
			check: func(t *testing.T, c *collect) {
				cxNoErrors(t, c)
				s := cxOne(t, c)
				if s.ID != "0190aaaa-bbbb-7ccc-8ddd-000000000002" || s.StartedAt.IsZero() {
					t.Errorf("ID %q StartedAt %v", s.ID, s.StartedAt)
				}
				want := []string{
					"system: <environment_context>\n  <cwd>/home/ana/src/kettle</cwd>\n</environment_context>",
					"developer: list the files",
					`tool: shell {"command":["ls"]}`,
					"tool: a.go\nb.go\n",
					"agent: There are two files.",
				}
				if got := cxDigest(s); !reflect.DeepEqual(got, want) {
					t.Errorf("turns:\n%q\nwant\n%q", got, want)
				}
				if got, _ := json.Marshal(s.Turns[3].Meta); string(got) != `{"tool_result":{"call_id":"c9","name":"shell","success":true}}` {
					t.Errorf("result meta %s", got)
				}
			},
		},
		{
			name: "tool output over 8 KiB is clipped on a character boundary with its length in Meta",
			data: codexTestMeta + "\n" + codexUser("go") + "\n" +
				codexLine("2025-03-01T10:00:02Z", "response_item", map[string]any{"type": "function_call_output", "call_id": "c", "output": big}) + "\n",
			check: func(t *testing.T, c *collect) {
				cxNoErrors(t, c)
				tu := cxOne(t, c).Turns[1]
				if len(tu.Text) != codexToolTextMax || !utf8.ValidString(tu.Text) || tu.Meta["text_bytes"] != len(big) {
					t.Errorf("clipped to %d bytes (valid %v), text_bytes %v; want %d, true, %d",
						len(tu.Text), utf8.ValidString(tu.Text), tu.Meta["text_bytes"], codexToolTextMax, len(big))
				}
			},
		},
		{
			name: "lines of several MB are read whole",
			data: codexTestMeta + "\r\n" + codexUser(strings.Repeat("x", 3<<20)) + "\r\n",
			check: func(t *testing.T, c *collect) {
				cxNoErrors(t, c)
				if got := len(cxOne(t, c).Turns[0].Text); got != 3<<20 {
					t.Errorf("text of %d bytes, want %d", got, 3<<20)
				}
			},
		},
		{
			name: "events and items of other types are ignored whatever their shape",
			data: "\ufeff" + codexTestMeta + "\n" + codexUser("hi") + "\n" +
				codexLine("2025-03-01T10:00:02Z", "event_msg", map[string]any{"type": "exec_command_end", "message": map[string]any{"x": 1}}) + "\n" +
				codexLine("2025-03-01T10:00:02Z", "response_item", map[string]any{"type": "reasoning", "content": 5}) + "\n" +
				codexLine("2025-03-01T10:00:02Z", "response_item", map[string]any{"type": "ghost_snapshot", "role": []int{1}}) + "\n" +
				codexLine("2025-03-01T10:00:02Z", "compacted", map[string]any{"message": "summary"}) + "\n",
			check: func(t *testing.T, c *collect) {
				cxNoErrors(t, c)
				if got := cxDigest(cxOne(t, c)); !reflect.DeepEqual(got, []string{"developer: hi"}) {
					t.Errorf("turns %q", got)
				}
			},
		},
		{
			name: "user message of the wrong shape is reported with its line",
			data: codexTestMeta + "\n" + codexUser("hi") + "\n" +
				codexLine("2025-03-01T10:00:02Z", "event_msg", map[string]any{"type": "user_message", "message": 5}) + "\n",
			check: func(t *testing.T, c *collect) {
				cxWantError(t, c, 3, "event_msg user_message")
				if got := cxTexts(cxOne(t, c), ub.RoleDeveloper); !reflect.DeepEqual(got, []string{"hi"}) {
					t.Errorf("developer texts %q", got)
				}
			},
		},
		{
			name: "message that only mentions a custom prompt heading is typed text",
			data: codexTestMeta + "\n" + codexUser("## User Input\n\nis this heading ok?") + "\n",
			check: func(t *testing.T, c *collect) {
				tu := cxOne(t, c).Turns[0]
				if tu.IsCommand || tu.Text != "## User Input\n\nis this heading ok?" {
					t.Errorf("got command %v text %q", tu.IsCommand, tu.Text)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, data := "inline.jsonl", []byte(tt.data)
			if tt.file != "" {
				path = filepath.Join(dir, tt.file)
				data = cxReadFile(t, path)
			}
			tt.check(t, cxParse(t, ParseCodex, path, data))
		})
	}
}

// cxErrReader fails after its data.
type cxErrReader struct{ data []byte }

func (r *cxErrReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestParseCodexReadErrorIsReturned(t *testing.T) {
	var c collect
	err := ParseCodex(Source{Path: "x.jsonl", R: &cxErrReader{[]byte(codexTestMeta + "\n")}}, &c)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v, want the read error", err)
	}
}

// cxCheckParsed holds for anything a parser emits, whatever the input.
func cxCheckParsed(t *testing.T, c *collect) {
	t.Helper()
	for _, s := range c.sessions {
		if s.ID == "" || s.DeveloperTurns() == 0 {
			t.Fatalf("session with ID %q and %d developer turns", s.ID, s.DeveloperTurns())
		}
		if _, err := json.Marshal(s.Meta); err != nil {
			t.Fatalf("session Meta does not marshal: %v", err)
		}
		for i, tu := range s.Turns {
			if !tu.Role.Valid() {
				t.Fatalf("turn %d: invalid role %q", i, tu.Role)
			}
			if !utf8.ValidString(tu.Text) {
				t.Fatalf("turn %d: invalid UTF-8 text %q", i, tu.Text)
			}
			if _, err := json.Marshal(tu.Meta); err != nil {
				t.Fatalf("turn %d: Meta does not marshal: %v", i, err)
			}
		}
	}
}

func cxFuzzSeeds(f *testing.F, glob string) {
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds at %s: %v", glob, err)
	}
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func FuzzParseCodex(f *testing.F) {
	cxFuzzSeeds(f, filepath.Join("testdata", "codex", "*.jsonl"))
	f.Add([]byte(codexTestMeta + "\n" + codexUser("/x") + "\n{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cxCheckParsed(t, cxParse(t, ParseCodex, "fuzz.jsonl", data))
	})
}

// TestCodexCorpus parses the real rollouts in the corpus. The developer turn
// counts are the user_message events the corpus README states (7 and 2); the
// other counts were read off the files with jq (event_msg agent_message;
// response_item *_call and *_call_output; injected response_item user
// messages) and the command counts are the user_message events in the
// spec-kit prompt shape.
func TestCodexCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t, "formats"), "codex-rollout__*"))
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ developer, commands, agent, tool, system int }
	want := map[string]counts{
		"codex-rollout__Kooksun__Lotto645__2025-11-06T15-44-45.jsonl": {7, 6, 7, 226, 1},
		"codex-rollout__Kooksun__Lotto645__2025-11-07T09-19-52.jsonl": {2, 1, 2, 186, 2},
	}
	if len(files) != len(want) {
		t.Fatalf("found %d codex rollouts, want %d", len(files), len(want))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data := cxReadFile(t, path)
			c := cxParse(t, ParseCodex, path, data)
			cxNoErrors(t, c)
			cxCheckParsed(t, c)
			s := cxOne(t, c)
			var got counts
			for _, tu := range s.Turns {
				switch tu.Role {
				case ub.RoleDeveloper:
					got.developer++
					if tu.IsCommand {
						got.commands++
					}
				case ub.RoleAgent:
					got.agent++
				case ub.RoleTool:
					got.tool++
				case ub.RoleSystem:
					got.system++
				}
			}
			if w, ok := want[filepath.Base(path)]; !ok || got != w {
				t.Errorf("got %+v, want %+v", got, w)
			}
			// The id and cwd are session_meta's, read here independently.
			var first struct {
				Payload struct{ ID, Cwd string }
			}
			line, _, _ := bytes.Cut(data, []byte("\n"))
			if err := json.Unmarshal(line, &first); err != nil {
				t.Fatal(err)
			}
			if s.ID != first.Payload.ID || s.Repo != first.Payload.Cwd || s.StartedAt.IsZero() {
				t.Errorf("ID %q Repo %q StartedAt %v; session_meta has %q %q", s.ID, s.Repo, s.StartedAt, first.Payload.ID, first.Payload.Cwd)
			}
			if s.Meta["cli_version"] == nil || s.Meta["model"] == nil || s.Meta["token_usage"] == nil {
				t.Errorf("Meta lacks cli_version, model or token_usage: %v", s.Meta)
			}
		})
	}
}
