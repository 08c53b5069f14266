package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ub-bench/ub"
)

// claudeParse runs parse over a testdata file, or over in when file is "".
func claudeParse(t testing.TB, parse ParseFunc, file, in string) *collect {
	t.Helper()
	path := "inline"
	var data []byte
	if file != "" {
		path = filepath.Join("testdata", file)
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	} else {
		data = []byte(in)
	}
	c := &collect{}
	if err := parse(Source{Path: path, R: bytes.NewReader(data)}, c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

// claudePrompts returns the texts of the developer turns that are not commands.
func claudePrompts(s *ub.Session) []string {
	var out []string
	for _, t := range s.Turns {
		if t.Role == ub.RoleDeveloper && !t.IsCommand {
			out = append(out, t.Text)
		}
	}
	return out
}

// claudeFind returns the turns whose text contains sub.
func claudeFind(s *ub.Session, sub string) []ub.Turn {
	var out []ub.Turn
	for _, t := range s.Turns {
		if strings.Contains(t.Text, sub) {
			out = append(out, t)
		}
	}
	return out
}

// claudeOne returns the single turn whose text contains sub.
func claudeOne(t *testing.T, s *ub.Session, sub string) ub.Turn {
	t.Helper()
	got := claudeFind(s, sub)
	if len(got) != 1 {
		t.Fatalf("%d turns contain %q, want 1", len(got), sub)
	}
	return got[0]
}

// claudeOnly returns the single session of c, failing on errors.
func claudeOnly(t *testing.T, c *collect) *ub.Session {
	t.Helper()
	for _, e := range c.errs {
		t.Errorf("unexpected error: %v", e)
	}
	if len(c.sessions) != 1 {
		t.Fatalf("got %d sessions, want 1", len(c.sessions))
	}
	return c.sessions[0]
}

// claudeCheckInvariants holds for every session a Claude parser emits.
func claudeCheckInvariants(t testing.TB, s *ub.Session) {
	t.Helper()
	if s.ID == "" {
		t.Errorf("empty session id")
	}
	if len(claudePrompts(s)) == 0 {
		t.Errorf("session %s emitted without a developer prompt", s.ID)
	}
	meta, err := json.Marshal(s.Meta)
	if err != nil {
		t.Errorf("session meta does not marshal: %v", err)
	}
	if !utf8.Valid(meta) {
		t.Errorf("session meta is not UTF-8")
	}
	for i, tu := range s.Turns {
		if !tu.Role.Valid() {
			t.Errorf("turn %d: invalid role %q", i, tu.Role)
		}
		if !utf8.ValidString(tu.Text) {
			t.Errorf("turn %d: text is not UTF-8", i)
		}
		if tu.IsCommand && tu.Role != ub.RoleDeveloper {
			t.Errorf("turn %d: command with role %s", i, tu.Role)
		}
		m, err := json.Marshal(tu.Meta)
		if err != nil {
			t.Errorf("turn %d: meta does not marshal: %v", i, err)
		}
		if bytes.Contains(m, []byte(`"base64"`)) {
			t.Errorf("turn %d: base64 data in meta", i)
		}
	}
}

func TestParseClaudeCode(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 150000) // 2.4 MB: one line longer than the reader's buffer
	bigLines := strings.Join([]string{
		`{"type":"user","sessionId":"s-big","uuid":"1","timestamp":"2026-01-01T00:00:00Z","cwd":"/r","message":{"role":"user","content":"show me the log"}}`,
		`{"type":"assistant","sessionId":"s-big","uuid":"2","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m","model":"x","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"/r/log.txt","content":"` + big + `"}}]}}`,
		`{"type":"user","sessionId":"s-big","uuid":"3","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + big + `"}]}}`,
	}, "\n") + "\n"
	crlf := "{\"type\":\"user\",\"sessionId\":\"s-crlf\",\"message\":{\"content\":\"hello\"}}\r\n{\"type\":\"assistant\",\"sessionId\":\"s-crlf\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}\r\n"
	noID := `{"type":"user","message":{"content":"a prompt with no session id"}}` + "\n"
	denied := `{"type":"user","sessionId":"s","message":{"content":"go"}}
{"type":"assistant","sessionId":"s","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Edit","input":{"file_path":"a.go"}}]}}
{"type":"user","sessionId":"s","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"rejected","is_error":true},{"type":"text","text":"[Request interrupted by user for tool use]"}]}}
`

	const rich = "claudecode/session.jsonl"
	tests := []struct {
		name  string
		file  string // under testdata; or
		in    string // inline input
		check func(t *testing.T, c *collect)
	}{
		{"session facts come from the lines", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			want := time.Date(2026, 3, 2, 10, 0, 1, 0, time.UTC)
			if s.ID != "11111111-2222-4333-8444-555555555555" || s.Format != "claude-code" ||
				!s.StartedAt.Equal(want) || s.Line != 3 || s.SourceFile != filepath.Join("testdata", rich) || s.Developer != "" {
				t.Errorf("got id=%q format=%q start=%v line=%d file=%q dev=%q", s.ID, s.Format, s.StartedAt, s.Line, s.SourceFile, s.Developer)
			}
		}},
		{"repo is the first cwd and every cwd is in meta", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			if s.Repo != "/home/dana/src/kettle" {
				t.Errorf("repo %q", s.Repo)
			}
			if got, want := s.Meta["cwds"], []string{"/home/dana/src/kettle", "/home/dana/src/kettle/firmware"}; !reflect.DeepEqual(got, want) {
				t.Errorf("cwds %v, want %v", got, want)
			}
		}},
		{"version, branch and titles are in meta", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			for k, v := range map[string]string{"version": "2.1.50", "gitBranch": "main", "ai_title": "Kettle switch-off bug", "custom_title": "kettle"} {
				if s.Meta[k] != v {
					t.Errorf("meta %s = %v, want %q", k, s.Meta[k], v)
				}
			}
		}},
		{"developer prompts are exactly the typed ones", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			want := []string{
				"Why does the kettle never switch off?",
				"also check the lid sensor",
				"Here is the panel [Image #1]\n[image]",
				"now fix it in the firmware folder",
			}
			if got := claudePrompts(s); !reflect.DeepEqual(got, want) {
				t.Errorf("prompts\n got %q\nwant %q", got, want)
			}
		}},
		{"IDE context is cut from the prompt and kept in meta", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "never switch off")
			ide, _ := tu.Meta["ide"].([]string)
			if tu.Text != "Why does the kettle never switch off?" || len(ide) != 1 || !strings.Contains(ide[0], "boil.go") {
				t.Errorf("text %q ide %v", tu.Text, tu.Meta["ide"])
			}
		}},
		{"text blocks of one message merge into one agent turn and thinking is dropped", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			tu := claudeOne(t, s, "look at the thermostat")
			if tu.Role != ub.RoleAgent || tu.Text != "Let me look at the thermostat code.\n\nStarting with boil.go." || tu.Meta["message_id"] != "msg_A" {
				t.Errorf("got %s %q %v", tu.Role, tu.Text, tu.Meta)
			}
			if s.Turns[1].Role != ub.RoleAgent {
				t.Errorf("turn after the prompt is %s, want the agent text (thinking dropped)", s.Turns[1].Role)
			}
		}},
		{"agent turns carry model and token counts", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "wrong sign")
			u, _ := tu.Meta["usage"].(map[string]any)
			if tu.Meta["model"] != "claude-test-1" || u["output_tokens"] != 7.0 {
				t.Errorf("meta %v", tu.Meta)
			}
		}},
		{"tool_use is a one-line tool turn with name and input in meta", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "Bash: ")
			use, _ := tu.Meta["tool_use"].(map[string]any)
			input, _ := use["input"].(map[string]any)
			if tu.Role != ub.RoleTool || tu.Text != "Bash: grep -n switchOff boil.go" || use["id"] != "toolu_1" || use["name"] != "Bash" || input["description"] != "find it" {
				t.Errorf("got %s %q %v", tu.Role, tu.Text, tu.Meta)
			}
		}},
		{"tool_result carries its call id, error flag and tool name", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "File does not exist.")
			res, _ := tu.Meta["tool_result"].(map[string]any)
			if tu.Role != ub.RoleTool || res["tool_use_id"] != "toolu_2" || res["is_error"] != true || res["name"] != "Read" {
				t.Errorf("got %s %v", tu.Role, tu.Meta)
			}
			if tu.Text != "File does not exist.\n[image]" {
				t.Errorf("text %q", tu.Text)
			}
		}},
		{"images become a placeholder and reminders after the prompt are cut", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "Here is the panel")
			if tu.Text != "Here is the panel [Image #1]\n[image]" || tu.Meta["images"] != 1 {
				t.Errorf("got %q %v", tu.Text, tu.Meta)
			}
		}},
		{"no base64 data is kept", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			b, _ := json.Marshal(s)
			for _, blob := range []string{"QUJDREVGR0g=", "iVBORw0KGgo"} {
				if bytes.Contains(b, []byte(blob)) {
					t.Errorf("base64 %q kept", blob)
				}
			}
		}},
		{"isMeta text is a system turn", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "Steep for three minutes")
			if tu.Role != ub.RoleSystem || tu.Meta["kind"] != "meta" {
				t.Errorf("got %s %v", tu.Role, tu.Meta)
			}
		}},
		{"slash command is a developer command", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "/review")
			if tu.Role != ub.RoleDeveloper || !tu.IsCommand || tu.Text != "/review boil.go" {
				t.Errorf("got %s cmd=%v %q", tu.Role, tu.IsCommand, tu.Text)
			}
		}},
		{"local slash command from a system line is a developer command", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "/cost")
			if tu.Role != ub.RoleDeveloper || !tu.IsCommand || tu.Text != "/cost" || tu.Meta["local"] != true {
				t.Errorf("got %s cmd=%v %q %v", tu.Role, tu.IsCommand, tu.Text, tu.Meta)
			}
		}},
		{"command output is a system turn without ANSI escapes", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			for sub, want := range map[string]string{"Review queued": "Review queued", "Total cost": "Total cost: $0.01"} {
				tu := claudeOne(t, s, sub)
				if tu.Role != ub.RoleSystem || tu.Text != want || tu.Meta["kind"] != "command_output" {
					t.Errorf("got %s %q %v", tu.Role, tu.Text, tu.Meta)
				}
			}
		}},
		{"command caveat is dropped", rich, "", func(t *testing.T, c *collect) {
			if n := len(claudeFind(claudeOnly(t, c), "Caveat")); n != 0 {
				t.Errorf("%d caveat turns", n)
			}
		}},
		{"shell escape is a developer command and its output a tool turn", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			in := claudeOne(t, s, "make test")
			if in.Role != ub.RoleDeveloper || !in.IsCommand || in.Text != "!make test" {
				t.Errorf("input: %s cmd=%v %q", in.Role, in.IsCommand, in.Text)
			}
			out := claudeOne(t, s, "kettle 0.01s")
			if out.Role != ub.RoleTool || out.Text != "ok  kettle 0.01s\nwarning: slow" {
				t.Errorf("output: %s %q", out.Role, out.Text)
			}
		}},
		{"away summary is a system turn; turn_duration and bridge_status are dropped", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			tu := claudeOne(t, s, "You were fixing")
			if tu.Role != ub.RoleSystem || tu.Meta["subtype"] != "away_summary" {
				t.Errorf("got %s %v", tu.Role, tu.Meta)
			}
			if n := len(claudeFind(s, "remote-control")); n != 0 {
				t.Errorf("bridge_status kept")
			}
		}},
		{"queued prompt written twice is kept once, at the attachment", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "also check the lid sensor")
			if tu.Role != ub.RoleDeveloper || tu.Meta["queued"] != true {
				t.Errorf("got %s %v", tu.Role, tu.Meta)
			}
		}},
		{"peer, system and task-notification messages are system turns", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			for sub, kind := range map[string]string{
				"Another session says":       "origin_peer",
				"Resume the background job":  "prompt_source_system",
				"<status>completed</status>": "origin_task-notification",
				"[Request interrupted":       "interrupted",
				"being continued":            "compact_summary",
			} {
				tu := claudeOne(t, s, sub)
				if tu.Role != ub.RoleSystem || tu.Meta["kind"] != kind {
					t.Errorf("%q: got %s %v, want system %s", sub, tu.Role, tu.Meta, kind)
				}
			}
			if n := len(claudeFind(s, "cross-session-message")) + len(claudeFind(s, "<task-id>t1</task-id>\n</task")); n != 0 {
				t.Errorf("queued peer or notification attachment kept")
			}
		}},
		{"synthetic assistant message is a system turn", rich, "", func(t *testing.T, c *collect) {
			tu := claudeOne(t, claudeOnly(t, c), "API Error")
			if tu.Role != ub.RoleSystem || tu.Meta["kind"] != "synthetic" {
				t.Errorf("got %s %v", tu.Role, tu.Meta)
			}
		}},
		{"sidechain lines and replayed uuids are dropped", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			if n := len(claudeFind(s, "TODOs")); n != 0 {
				t.Errorf("sidechain prompt kept")
			}
			claudeOne(t, s, "firmware folder")
		}},
		{"turns follow file order with line numbers and timestamps", rich, "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			last, lastTS := 0, time.Time{}
			for i, tu := range s.Turns {
				line, _ := tu.Meta["line"].(int)
				if line < last || tu.TS.Before(lastTS) || tu.TS.IsZero() {
					t.Errorf("turn %d: line %d ts %v after line %d ts %v", i, line, tu.TS, last, lastTS)
				}
				last, lastTS = line, tu.TS
			}
		}},
		{"final line cut inside a character is reported and the rest kept", "claudecode/truncated.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 4 || !strings.Contains(c.errs[0].Reason, "cut short") || !c.errs[0].Warning {
				t.Fatalf("errors %v", c.errs)
			}
			if len(c.sessions) != 1 || len(claudePrompts(c.sessions[0])) != 2 {
				t.Fatalf("sessions %v", c.sessions)
			}
		}},
		{"final line cut between characters is reported and the rest kept", "claudecode/truncated_ascii.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 4 || !strings.Contains(c.errs[0].Reason, "cut short") || !c.errs[0].Warning {
				t.Fatalf("errors %v", c.errs)
			}
			if len(c.sessions) != 1 || len(claudePrompts(c.sessions[0])) != 2 {
				t.Fatalf("sessions %v", c.sessions)
			}
		}},
		{"invalid JSON line in the middle is reported and skipped", "claudecode/bad_middle.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 2 || !strings.HasPrefix(c.errs[0].Reason, "invalid JSON") {
				t.Fatalf("errors %v", c.errs)
			}
			if len(c.sessions) != 1 || len(c.sessions[0].Turns) != 2 {
				t.Fatalf("sessions %v", c.sessions)
			}
		}},
		{"invalid UTF-8 rejects the file", "claudecode/invalid_utf8.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 3 || !strings.HasPrefix(c.errs[0].Reason, "invalid UTF-8 (byte 57)") /* counted by hand */ || len(c.sessions) != 0 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
		}},
		{"NUL bytes reject the file", "claudecode/nul.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 1 || c.errs[0].Line != 2 || !strings.Contains(c.errs[0].Reason, "NUL") || len(c.sessions) != 0 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
		}},
		{"session with only commands is skipped", "claudecode/no_prompt.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 0 || len(c.sessions) != 0 || c.skips["no developer message"] != 1 {
				t.Fatalf("errors %v sessions %d skips %v", c.errs, len(c.sessions), c.skips)
			}
		}},
		{"lines are grouped by sessionId", "claudecode/two_sessions.jsonl", "", func(t *testing.T, c *collect) {
			if len(c.errs) != 0 || len(c.sessions) != 2 {
				t.Fatalf("errors %v sessions %d", c.errs, len(c.sessions))
			}
			a, b := c.sessions[0], c.sessions[1]
			if len(claudePrompts(a)) != 2 || a.Repo != "/home/dana/src/kettle" {
				t.Errorf("first: %q %s", claudePrompts(a), a.Repo)
			}
			if b.ID != "99999999-8888-4777-8666-555555555555" || b.Repo != "/home/dana/src/teapot" || b.Line != 3 || len(b.Turns) != 2 {
				t.Errorf("second: %s %s line %d turns %d", b.ID, b.Repo, b.Line, len(b.Turns))
			}
		}},
		{"older versions: queued prompt without origin is a prompt", "claudecode/old_version.jsonl", "", func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			want := []string{"why is the log empty", "stop", "try again with verbose logging"}
			if got := claudePrompts(s); !reflect.DeepEqual(got, want) {
				t.Errorf("prompts %q, want %q", got, want)
			}
		}},
		{"long lines are read and long results and inputs are cut to 8 KiB", "", bigLines, func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			res := s.Turns[2]
			meta, _ := res.Meta["tool_result"].(map[string]any)
			if len(res.Text) > claudeMaxText+100 || meta["bytes"] != len(big) || meta["truncated"] != true {
				t.Errorf("result: %d bytes, meta %v", len(res.Text), meta)
			}
			use, _ := s.Turns[1].Meta["tool_use"].(map[string]any)
			input, _ := use["input"].(map[string]any)
			if content, _ := input["content"].(string); len(content) > claudeMaxInput+100 {
				t.Errorf("tool input kept %d bytes", len(content))
			}
			if s.Turns[1].Text != "Write: /r/log.txt" {
				t.Errorf("label %q", s.Turns[1].Text)
			}
		}},
		{"CRLF line endings are accepted", "", crlf, func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			if got := claudePrompts(s); len(got) != 1 || got[0] != "hello" || len(s.Turns) != 2 {
				t.Errorf("turns %v", s.Turns)
			}
		}},
		{"session without sessionId gets a stable id from the file", "", noID, func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			if s.ID != StableID("claude-code", "inline", "1") {
				t.Errorf("id %q", s.ID)
			}
		}},
		{"text beside a tool result is a system turn, not a prompt", "", denied, func(t *testing.T, c *collect) {
			s := claudeOnly(t, c)
			if got := claudePrompts(s); len(got) != 1 || len(s.Turns) != 4 {
				t.Fatalf("prompts %q turns %d", got, len(s.Turns))
			}
			if tu := s.Turns[3]; tu.Role != ub.RoleSystem || tu.Meta["kind"] != "interrupted" {
				t.Errorf("got %s %v", tu.Role, tu.Meta)
			}
		}},
		{"empty input gives nothing", "", "", func(t *testing.T, c *collect) {
			if len(c.errs)+len(c.sessions)+len(c.skips) != 0 {
				t.Errorf("got %v %v %v", c.errs, c.sessions, c.skips)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := claudeParse(t, ParseClaudeCode, tt.file, tt.in)
			for _, s := range c.sessions {
				claudeCheckInvariants(t, s)
			}
			tt.check(t, c)
		})
	}
}

func TestParseClaudeCodeIdempotent(t *testing.T) {
	a := claudeParse(t, ParseClaudeCode, "claudecode/session.jsonl", "")
	b := claudeParse(t, ParseClaudeCode, "claudecode/session.jsonl", "")
	if a.sessions[0].ContentHash() != b.sessions[0].ContentHash() {
		t.Errorf("two parses of one file differ")
	}
}

// claudeManifest is the part of claude-code/manifest.jsonl the corpus test checks.
type claudeManifest struct {
	Sessions           int            `json:"sessions"`
	Projects           int            `json:"projects"`
	DeveloperPrompts   int            `json:"developer_prompts"`
	SessionsPerProject map[string]int `json:"sessions_per_project"`
}

var claudeEncodeRE = regexp.MustCompile(`[^A-Za-z0-9]`)

func TestClaudeCodeCorpus(t *testing.T) {
	dir := corpusDir(t, "claude-code")
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var man claudeManifest
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&man); err != nil {
		t.Fatal(err)
	}
	// The README states these numbers; the manifest must agree with it.
	if man.Sessions != 18 || man.DeveloperPrompts != 98 || man.Projects != 6 {
		t.Fatalf("manifest says %d sessions, %d prompts, %d projects; README says 18, 98, 6", man.Sessions, man.DeveloperPrompts, man.Projects)
	}
	var sessions []*ub.Session
	perProject := map[string]int{}
	repos := map[string]bool{}
	prompts := 0
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") || d.Name() == "manifest.jsonl" {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		c := &collect{}
		if err := ParseClaudeCode(Source{Path: path, R: bufio.NewReader(f)}, c); err != nil {
			return err
		}
		for _, e := range c.errs {
			t.Errorf("%v", e)
		}
		if len(c.sessions) != 1 {
			t.Errorf("%s: %d sessions, want 1", path, len(c.sessions))
		}
		project := filepath.Base(filepath.Dir(path))
		for _, s := range c.sessions {
			claudeCheckInvariants(t, s)
			if want := strings.TrimSuffix(d.Name(), ".jsonl"); s.ID != want {
				t.Errorf("%s: id %s, want the file name", path, s.ID)
			}
			// The project folder is the start cwd with every non-alphanumeric
			// character replaced by '-' (claude-code README).
			if enc := claudeEncodeRE.ReplaceAllString(s.Repo, "-"); enc != project {
				t.Errorf("%s: repo %s encodes to %s, not the folder name", path, s.Repo, enc)
			}
			if s.StartedAt.IsZero() {
				t.Errorf("%s: no start time", path)
			}
			sessions = append(sessions, s)
			perProject[project]++
			repos[s.Repo] = true
			prompts += len(claudePrompts(s))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sessions) != man.Sessions {
		t.Errorf("%d sessions, manifest says %d", len(sessions), man.Sessions)
	}
	// 98 = 86 user lines left after the README's filters + 12 queued_command
	// attachments typed by the developer (none of them also written as a
	// user line, so deduplication removes nothing here).
	if prompts != man.DeveloperPrompts {
		t.Errorf("%d developer prompts, manifest says %d", prompts, man.DeveloperPrompts)
	}
	if len(repos) != man.Projects {
		t.Errorf("%d distinct start cwds, manifest says %d projects", len(repos), man.Projects)
	}
	if !reflect.DeepEqual(perProject, man.SessionsPerProject) {
		t.Errorf("sessions per project %v, manifest says %v", perProject, man.SessionsPerProject)
	}
}

func TestClaudeCodeFormatsCorpus(t *testing.T) {
	dir := corpusDir(t, "formats")
	// The formats README defines a prompt as a user entry with string or text
	// content that is not a tool result, isMeta or a <command-…> wrapper; it
	// gives no counts. These were counted by hand from the files:
	//   2b8d60c5: 2 prompts; six `!` shell escapes (IsCommand) with their output.
	//   8a3e5a2e: 3 user-line prompts + "stop", typed while the agent worked
	//             (queued_command attachment without origin, version 2.1.97).
	//   8c880a68: 5 prompts.
	want := map[string]int{"2b8d60c5": 2, "8a3e5a2e": 4, "8c880a68": 5}
	files, _ := filepath.Glob(filepath.Join(dir, "claude-code-jsonl__*"))
	if len(files) != len(want) {
		t.Fatalf("%d claude-code-jsonl files, want %d", len(files), len(want))
	}
	for _, path := range files {
		c := claudeParse(t, ParseClaudeCode, "", string(claudeRead(t, path)))
		for _, e := range c.errs {
			t.Errorf("%s: %v", path, e)
		}
		if len(c.sessions) != 1 {
			t.Fatalf("%s: %d sessions", path, len(c.sessions))
		}
		s := c.sessions[0]
		claudeCheckInvariants(t, s)
		short := strings.TrimSuffix(path[strings.LastIndex(path, "__")+2:], ".jsonl")
		if !strings.HasPrefix(s.ID, short) {
			t.Errorf("%s: id %s", path, s.ID)
		}
		if got := len(claudePrompts(s)); got != want[short] {
			t.Errorf("%s: %d developer prompts, want %d", path, got, want[short])
		}
	}
}

func claudeRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// claudeFuzzCheck is the fuzz invariant: no panic, and every session valid.
func claudeFuzzCheck(t *testing.T, parse ParseFunc, data []byte) {
	c := &collect{}
	if err := parse(Source{Path: "fuzz", R: bytes.NewReader(data)}, c); err != nil {
		t.Fatalf("error from an in-memory reader: %v", err)
	}
	for _, e := range c.errs {
		if e.Path != "fuzz" || e.Line < 0 || !utf8.ValidString(e.Reason) {
			t.Errorf("bad error %#v", e)
		}
	}
	for _, s := range c.sessions {
		claudeCheckInvariants(t, s)
		if s.Line < 1 {
			t.Errorf("session line %d", s.Line)
		}
	}
}

func FuzzParseClaudeCode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "claudecode", "*.jsonl"))
	for _, p := range files {
		f.Add(claudeRead(f, p))
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"image"},{"type":"text","text":"<ide_selection>x</ide_selection>"}]}}`))
	f.Add([]byte(`{"type":"attachment","attachment":{"type":"queued_command","prompt":[{"type":"text","text":"q"}]}}` + "\n" + `{"type":"user","message":{"content":"q"}}`))
	f.Add([]byte(`{"type":"system","subtype":"local_command","content":"<command-args>x"}`))
	f.Add([]byte(fmt.Sprintf("%s\n%s", `{"type":"assistant","message":{"content":"s"}}`, `{"type":"user","message":{"content":7}}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		claudeFuzzCheck(t, ParseClaudeCode, data)
	})
}
