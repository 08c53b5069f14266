package ingest

import (
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ub-bench/ub"
)

func TestParseClaudeExport(t *testing.T) {
	const rich = "claudeexport/session.md"
	cut := "# Claude Session Export\n\n## Conversation\n\n### User\n> 1/5/2026, 8:00:00 AM\n\nwater the basil\n\n---\n\n### User\n> 1/5/2026, 8:00:09 AM\n\nand the mint \xe2\x98"
	tests := []struct {
		name  string
		file  string
		in    string
		check func(t *testing.T, c *collect)
	}{
		{"header gives id, repo, start and message counts", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			if s.ID != "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee" || s.Repo != "/home/lee/work/greenhouse" || s.Format != "claude-export" ||
				!s.StartedAt.Equal(time.Date(2026, 3, 4, 9, 5, 1, 0, time.UTC)) || s.Line != 1 {
				t.Errorf("got id=%s repo=%s format=%s start=%v line=%d", s.ID, s.Repo, s.Format, s.StartedAt, s.Line)
			}
			want := map[string]any{"user": 8, "assistant": 6}
			if !reflect.DeepEqual(s.Meta["messages"], want) || s.Meta["total_messages"] != "14 (8 user, 6 assistant)" || s.Meta["export_mode"] != "Full Conversation" {
				t.Errorf("meta %v", s.Meta)
			}
		}},
		{"developer prompts are the plain user texts", rich, "", func(t *testing.T, c *collect) {
			want := []string{"the humidity chart is empty", "[1, 2] are the sensor ids\n---\nthe rest are spares"}
			if got := claudePrompts(claudeOnly(t, c)); !reflect.DeepEqual(got, want) {
				t.Errorf("prompts %q, want %q", got, want)
			}
		}},
		{"timestamps are read as UTC, PM included", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "/exit")
			if !tu.TS.Equal(time.Date(2026, 3, 4, 13, 15, 30, 0, time.UTC)) {
				t.Errorf("ts %v", tu.TS)
			}
		}},
		{"consecutive assistant text merges into one agent turn", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "sensor query")
			if tu.Role != ub.RoleAgent || tu.Text != "Let me check the sensor query.\n\nIt reads from the readings table." {
				t.Errorf("got %s %q", tu.Role, tu.Text)
			}
		}},
		{"plain assistant text is an agent turn and thinking is dropped", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			tu := claudeOne(t, s, "never filled")
			if tu.Role != ub.RoleAgent {
				t.Errorf("got %s", tu.Role)
			}
			if n := len(claudeFind(s, "thinking")); n != 0 {
				t.Errorf("thinking kept")
			}
		}},
		{"tool_use and tool_result in JSON bodies are tool turns", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			use := claudeOne(t, s, "Grep: ")
			if use.Role != ub.RoleTool || use.Text != "Grep: humidity" {
				t.Errorf("use: %s %q", use.Role, use.Text)
			}
			res := claudeOne(t, s, "const humidity")
			meta, _ := res.Meta["tool_result"].(map[string]any)
			if res.Role != ub.RoleTool || meta["name"] != "Grep" || meta["tool_use_id"] != "toolu_9" {
				t.Errorf("result: %s %v", res.Role, res.Meta)
			}
		}},
		{"hook feedback and interruptions are system turns", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			for sub, kind := range map[string]string{"Stop hook feedback": "hook_feedback", "[Request interrupted": "interrupted", "Bye": "command_output"} {
				tu := claudeOne(t, s, sub)
				if tu.Role != ub.RoleSystem || tu.Meta["kind"] != kind {
					t.Errorf("%q: got %s %v", sub, tu.Role, tu.Meta)
				}
			}
		}},
		{"slash command is a developer command and the caveat is dropped", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			tu := claudeOne(t, s, "/exit")
			if tu.Role != ub.RoleDeveloper || !tu.IsCommand || tu.Text != "/exit" {
				t.Errorf("got %s cmd=%v %q", tu.Role, tu.IsCommand, tu.Text)
			}
			if n := len(claudeFind(s, "Caveat")); n != 0 {
				t.Errorf("caveat kept")
			}
		}},
		{"no export heading rejects the file", "claudeexport/no_header.md", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 1 || len(c.sessions) != 0 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
		}},
		{"invalid UTF-8 rejects the file", "claudeexport/invalid_utf8.md", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 14 || !strings.Contains(c.errs[0].Reason, "UTF-8") || len(c.sessions) != 0 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
		}},
		{"final line cut inside a character is reported and the rest kept", "", cut, func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 15 || len(c.sessions) != 1 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
			if got := claudePrompts(c.sessions[0]); len(got) != 2 || got[1] != "and the mint" {
				t.Errorf("prompts %q", got)
			}
		}},
		{"export with only commands is skipped", "claudeexport/no_prompt.md", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 0 || len(c.sessions) != 0 || c.skips["no developer message"] != 1 {
				t.Fatalf("errors %v sessions %d skips %v", c.errs, len(c.sessions), c.skips)
			}
		}},
		{"each export heading starts a session; a missing id is made stable", "claudeexport/two_exports.md", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 0 || len(c.sessions) != 2 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
			a, b := c.sessions[0], c.sessions[1]
			if a.ID != "dddddddd-0000-4000-8000-000000000001" || a.Repo != "/home/lee/a" || !a.StartedAt.Equal(time.Date(2025, 12, 31, 23, 59, 59, 0, time.UTC)) {
				t.Errorf("first: %s %s %v", a.ID, a.Repo, a.StartedAt)
			}
			if tu := claudeOne(t, a, "ok"); !tu.TS.Equal(time.Date(2026, 1, 1, 0, 0, 5, 0, time.UTC)) {
				t.Errorf("12 AM read as %v", tu.TS)
			}
			if b.ID != StableID("claude-export", "two_exports.md", strconv.Itoa(b.Line)) || b.Repo != "/home/lee/b" ||
				!b.StartedAt.Equal(time.Date(2026, 1, 2, 12, 30, 0, 0, time.UTC)) {
				t.Errorf("second: %s line %d %s %v", b.ID, b.Line, b.Repo, b.StartedAt)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := claudeParse(t, ParseClaudeExport, tt.file, tt.in)
			for _, s := range c.sessions {
				claudeCheckInvariants(t, s)
			}
			tt.check(t, c)
		})
	}
}

var claudeTotalRE = regexp.MustCompile(`^(\d+) \((\d+) user, (\d+) assistant\)$`)

func TestClaudeExportFormatsCorpus(t *testing.T) {
	dir := corpusDir(t, "formats")
	// The formats README gives no prompt counts; these were read from the
	// files. Plain-text user bodies that are not hook feedback, the local
	// command caveat, a slash command or its output:
	//   1a28ea9b: 7 prompts (three "Stop hook feedback:" bodies, /exit and
	//             its caveat and output are not prompts);
	//   6fb6154e: 2 prompts.
	want := map[string]int{"1a28ea9b": 7, "6fb6154e": 2}
	files, _ := filepath.Glob(filepath.Join(dir, "claude-export-md__*"))
	if len(files) != len(want) {
		t.Fatalf("%d claude-export-md files, want %d", len(files), len(want))
	}
	for _, path := range files {
		c := claudeParse(t, ParseClaudeExport, "", string(claudeRead(t, path)))
		for _, e := range c.errs {
			t.Errorf("%s: %v", path, e)
		}
		if len(c.sessions) != 1 {
			t.Fatalf("%s: %d sessions", path, len(c.sessions))
		}
		s := c.sessions[0]
		claudeCheckInvariants(t, s)
		short := strings.TrimSuffix(path[strings.LastIndex(path, "__")+2:], ".md")
		if !strings.HasPrefix(s.ID, short) || s.Repo != "/home/chris/dev/projects/codex/brain_explore" {
			t.Errorf("%s: id %s repo %s", path, s.ID, s.Repo)
		}
		if got := len(claudePrompts(s)); got != want[short] {
			t.Errorf("%s: %d developer prompts, want %d", path, got, want[short])
		}
		// Every message the header announces was read.
		m := claudeTotalRE.FindStringSubmatch(s.Meta["total_messages"].(string))
		if m == nil {
			t.Fatalf("%s: total_messages %v", path, s.Meta["total_messages"])
		}
		u, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		if got := s.Meta["messages"]; !reflect.DeepEqual(got, map[string]any{"user": u, "assistant": a}) {
			t.Errorf("%s: read %v messages, header says %s", path, got, m[0])
		}
	}
}

func FuzzParseClaudeExport(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "claudeexport", "*.md"))
	for _, p := range files {
		f.Add(claudeRead(f, p))
	}
	f.Add([]byte("# Claude Session Export\n## Conversation\n---\n### User\n> 13/45/2026, 99:00:00 PM\n[{\"type\":\"tool_result\",\"content\":[{\"type\":\"image\"}]}]\n"))
	f.Add([]byte("# Claude Session Export\n## Conversation\n### Assistant\n\n[{\"type\":\"tool_use\",\"input\":[1,\"x\"]}]\n---\n### User\nhi"))
	f.Fuzz(func(t *testing.T, data []byte) {
		claudeFuzzCheck(t, ParseClaudeExport, data)
	})
}
