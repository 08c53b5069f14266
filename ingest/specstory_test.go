package ingest

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub"
)

func TestParseSpecStory(t *testing.T) {
	dir := filepath.Join("testdata", "specstory")
	parse := func(t *testing.T, name string) *collect {
		path := filepath.Join(dir, name)
		return cxParse(t, ParseSpecStory, path, cxReadFile(t, path))
	}
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{
			name: "session fields come from the preamble",
			check: func(t *testing.T) {
				c := parse(t, "session.md")
				cxNoErrors(t, c)
				s := cxOne(t, c)
				if s.ID != "3f1c2a9e-0b7d-4c55-9e21-6a8d2f4b7c10" || s.Format != "specstory" ||
					s.Repo != "" || s.Developer != "" || s.Line != 1 {
					t.Errorf("got ID %q Format %q Repo %q Developer %q Line %d", s.ID, s.Format, s.Repo, s.Developer, s.Line)
				}
				// The session comment's time, not the first user header's (09:16).
				if want := time.Date(2025, 6, 2, 9, 15, 0, 0, time.UTC); !s.StartedAt.Equal(want) {
					t.Errorf("StartedAt = %v, want %v", s.StartedAt, want)
				}
				got, _ := json.Marshal(s.Meta)
				want := `{"ide":"vscode","model":"copilot/gpt-4.1","specstory_version":"2.1.0","title":"Add a dark mode toggle (2025-06-02 09:15Z)"}`
				if string(got) != want {
					t.Errorf("Meta = %s, want %s", got, want)
				}
			},
		},
		{
			name: "agent turns are split around tool uses, in order, without separators",
			check: func(t *testing.T) {
				s := cxOne(t, parse(t, "session.md"))
				want := []string{
					"developer: Add a dark mode toggle to the settings page.\n\n---\nThis line after a rule is still part of the message.",
					"tool: Tool use: **copilot_readFile** • Reading settings.tsx\n\n\nRead settings.tsx",
					"agent: I'll add a toggle that keeps the choice in localStorage.",
					"tool: Tool use: **copilot_replaceString**\n\n```tsx\n<Toggle label=\"Dark mode\" />\n```",
					"agent: Done. The toggle is on the settings page.",
					"developer!: /explain how the theme is stored",
					"agent: It is kept in localStorage under the key `theme`.",
					"developer!: @agent Continue: \"Continue to iterate?\"",
					"agent: Nothing left to do.",
				}
				if got := cxDigest(s); !reflect.DeepEqual(got, want) {
					t.Errorf("turns:\n%q\nwant\n%q", got, want)
				}
			},
		},
		{
			name: "turn metadata names the model, the tool and the continue button",
			check: func(t *testing.T) {
				s := cxOne(t, parse(t, "session.md"))
				var got []string
				for _, tu := range s.Turns {
					b, _ := json.Marshal(tu.Meta)
					got = append(got, string(b))
				}
				want := []string{
					"null",
					`{"tool_use":{"name":"copilot_readFile","type":"read"}}`,
					`{"model":"copilot/gpt-4.1"}`,
					`{"tool_use":{"name":"copilot_replaceString","type":"write"}}`,
					`{"model":"copilot/gpt-4.1"}`,
					"null",
					`{"model":"copilot/gpt-4.1"}`,
					`{"continue_button":true}`,
					`{"model":"copilot/gpt-4.1"}`,
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("metas:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			},
		},
		{
			name: "user timestamps are UTC with or without seconds",
			check: func(t *testing.T) {
				for file, want := range map[string][]time.Time{
					"session.md": {
						time.Date(2025, 6, 2, 9, 16, 0, 0, time.UTC),
						time.Date(2025, 6, 2, 9, 20, 0, 0, time.UTC),
						time.Date(2025, 6, 2, 9, 22, 0, 0, time.UTC),
					},
					"variant_long.md": {
						time.Date(2025, 7, 10, 14, 3, 12, 0, time.UTC),
						time.Date(2025, 7, 10, 14, 5, 47, 0, time.UTC),
					},
				} {
					var got []time.Time
					for _, tu := range cxOne(t, parse(t, file)).Turns {
						if tu.Role == ub.RoleDeveloper {
							got = append(got, tu.TS)
						}
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s: developer times %v, want %v", file, got, want)
					}
				}
			},
		},
		{
			name: "both header variants of one session give the same id and developer texts",
			check: func(t *testing.T) {
				a, b := cxOne(t, parse(t, "variant_short.md")), cxOne(t, parse(t, "variant_long.md"))
				if a.ID != "7a0e5c31-2d44-4b8f-a1c9-5e6f7d8c9b01" || b.ID != a.ID {
					t.Errorf("IDs %q and %q", a.ID, b.ID)
				}
				if ta, tb := cxTexts(a, ub.RoleDeveloper), cxTexts(b, ub.RoleDeveloper); !reflect.DeepEqual(ta, tb) {
					t.Errorf("developer texts differ:\n%q\n%q", ta, tb)
				}
				if got, _ := json.Marshal(b.Meta); string(got) != `{"ide":"VS Code Copilot IDE","model":"copilot/claude-sonnet-4","specstory_version":"2.1.0","title":"2025-07-10 14:03:12Z"}` {
					t.Errorf("Meta = %s", got)
				}
			},
		},
		{
			name: "thought blocks are dropped and consecutive agent headers start new turns",
			check: func(t *testing.T) {
				want := []string{
					"developer: The CSV import takes a minute. Make it faster.",
					"agent: I'll batch the inserts.",
					"developer: ok, go ahead",
					"tool: Tool use: **run_in_terminal**\n\n**Input:**\n\n- command: `go test ./importer`",
					"agent: Batched: 500 rows per insert.",
				}
				if got := cxDigest(cxOne(t, parse(t, "variant_long.md"))); !reflect.DeepEqual(got, want) {
					t.Errorf("turns:\n%q\nwant\n%q", got, want)
				}
			},
		},
		{
			name: "a header closes a tool block left open",
			check: func(t *testing.T) {
				c := parse(t, "unclosed_tool.md")
				cxNoErrors(t, c)
				want := []string{
					"developer: run the linter",
					"tool: Tool use: **run_in_terminal**\n\ngolangci-lint run",
					"developer: did it finish?",
					"agent: Yes, no findings.",
				}
				if got := cxDigest(cxOne(t, c)); !reflect.DeepEqual(got, want) {
					t.Errorf("turns:\n%q\nwant\n%q", got, want)
				}
			},
		},
		{
			name: "export without session comment gets a stable id from the file and times from nothing",
			check: func(t *testing.T) {
				c := parse(t, "no_session_comment.md")
				cxNoErrors(t, c)
				s := cxOne(t, c)
				if want := StableID("specstory", "no_session_comment.md", "Rename the module (2025-05-01 12:00:00)"); s.ID != want {
					t.Errorf("ID = %q, want %q", s.ID, want)
				}
				if !s.StartedAt.IsZero() {
					t.Errorf("StartedAt = %v, want zero (no time in the file)", s.StartedAt)
				}
				want := []string{"developer: rename the module to kettle", "agent: Renamed in go.mod and all imports."}
				if got := cxDigest(s); !reflect.DeepEqual(got, want) {
					t.Errorf("turns %q, want %q", got, want)
				}
			},
		},
		{
			name: "session without developer message is skipped",
			check: func(t *testing.T) {
				c := parse(t, "no_developer.md")
				cxNoErrors(t, c)
				if len(c.sessions) != 0 || c.skips["no developer message"] != 1 {
					t.Errorf("sessions %d skips %v", len(c.sessions), c.skips)
				}
			},
		},
		{
			name: "invalid UTF-8 rejects the file",
			check: func(t *testing.T) {
				c := parse(t, "invalid_utf8.md")
				cxWantError(t, c, 5, "invalid UTF-8 (byte 3)") // the line's first bad byte, counted by hand
				if len(c.sessions) != 0 {
					t.Errorf("got %d sessions, want none", len(c.sessions))
				}
			},
		},
		{
			name: "NUL byte rejects the file",
			check: func(t *testing.T) {
				c := parse(t, "nul.md")
				cxWantError(t, c, 5, "NUL")
				if len(c.sessions) != 0 {
					t.Errorf("got %d sessions, want none", len(c.sessions))
				}
			},
		},
		{
			name: "tool block over 8 KiB is clipped with its length in Meta",
			check: func(t *testing.T) {
				body := strings.Repeat("line of output\n", 1000)
				data := "_**User (2025-06-05 10:00Z)**_\n\nread it\n\n---\n\n_**Agent (model m)**_\n\n" +
					"<tool-use data-tool-type=\"read\" data-tool-name=\"readFile\">\n" + body + "</tool-use>\n"
				s := cxOne(t, cxParse(t, ParseSpecStory, "big.md", []byte(data)))
				tu := s.Turns[1]
				want := len(strings.TrimSpace(body))
				if tu.Role != ub.RoleTool || len(tu.Text) > codexToolTextMax || tu.Meta["text_bytes"] != want {
					t.Errorf("role %s, %d bytes, text_bytes %v; want tool, <= %d, %d", tu.Role, len(tu.Text), tu.Meta["text_bytes"], codexToolTextMax, want)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

func FuzzParseSpecStory(f *testing.F) {
	cxFuzzSeeds(f, filepath.Join("testdata", "specstory", "*.md"))
	f.Add([]byte("_**User (2025-06-05 10:00Z)**_\n<tool-use\n<think>\n_**Agent**_\n<tool-use x>\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cxCheckParsed(t, cxParse(t, ParseSpecStory, "fuzz.md", data))
	})
}

// TestSpecStoryCorpus parses the real SpecStory exports in the corpus. The
// counts were read off the files: developer = "_**User" header lines, tool =
// "<tool-use" lines; agent turns are the agent segments left after tool
// blocks and <think> blocks are split out (checked by hand against the
// files).
func TestSpecStoryCorpus(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpusDir(t, "formats"), "specstory__*"))
	if err != nil {
		t.Fatal(err)
	}
	type counts struct{ developer, commands, agent, tool int }
	const (
		oct  = "specstory__michalhorcic__cozy-checkout__2025-10-27_17-18Z.md"
		dec  = "specstory__michalhorcic__cozy-checkout__2025-12-08_17-31Z.md"
		decS = "specstory__michalhorcic__cozy-checkout__2025-12-08_17-31-47Z.md"
	)
	want := map[string]counts{
		oct:  {2, 0, 2, 25},
		dec:  {5, 0, 5, 5},
		decS: {10, 1, 10, 35}, // the command is Copilot's Continue button
	}
	if len(files) != len(want) {
		t.Fatalf("found %d SpecStory files, want %d", len(files), len(want))
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	sessions := map[string]*ub.Session{}
	for _, path := range files {
		base := filepath.Base(path)
		t.Run(base, func(t *testing.T) {
			c := cxParse(t, ParseSpecStory, path, cxReadFile(t, path))
			cxNoErrors(t, c)
			cxCheckParsed(t, c)
			s := cxOne(t, c)
			sessions[base] = s
			var got counts
			for _, tu := range s.Turns {
				switch tu.Role {
				case ub.RoleDeveloper:
					got.developer++
					if tu.IsCommand {
						got.commands++
					}
					if tu.TS.IsZero() {
						t.Errorf("developer turn without time: %.40q", tu.Text)
					}
				case ub.RoleAgent:
					got.agent++
				case ub.RoleTool:
					got.tool++
				default:
					t.Errorf("unexpected %s turn", tu.Role)
				}
			}
			if got != want[base] {
				t.Errorf("got %+v, want %+v", got, want[base])
			}
			if !uuid.MatchString(s.ID) || s.StartedAt.IsZero() || s.Meta["model"] == nil {
				t.Errorf("ID %q StartedAt %v Meta %v", s.ID, s.StartedAt, s.Meta)
			}
		})
	}
	// The two 2025-12-08 files are one session written by the two header
	// variants; the later export goes on for five more developer messages.
	a, b := sessions[dec], sessions[decS]
	if a == nil || b == nil {
		t.Fatal("2025-12-08 sessions missing")
	}
	if a.ID != b.ID || a.ID == sessions[oct].ID {
		t.Errorf("IDs %q, %q, %q: want the 2025-12-08 pair equal and the other distinct", a.ID, b.ID, sessions[oct].ID)
	}
	ta, tb := cxTexts(a, ub.RoleDeveloper), cxTexts(b, ub.RoleDeveloper)
	if len(ta) != 5 || len(tb) != 10 || !reflect.DeepEqual(ta, tb[:len(ta)]) {
		t.Errorf("developer texts of %s are not the first %d of %s", dec, len(ta), decS)
	}
}
