package sim

import (
	"fmt"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/sim/runner"
	"io/fs"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// mkTurns makes turns from role letters (d developer, a agent, t tool, s
// system); turn i has the text "tNN".
func mkTurns(roles string) []ub.Turn {
	names := map[rune]string{'d': "developer", 'a': "agent", 't': "tool", 's': "system"}
	var out []ub.Turn
	for i, r := range roles {
		out = append(out, ub.Turn{Role: ub.Role(names[r]), Text: fmt.Sprintf("t%02d", i)})
	}
	return out
}

var turnTextRE = regexp.MustCompile(`\[(developer|agent|tool|system)\]\nt(\d\d)`)

// shownTurns lists the "tNN" turns a prompt's user message shows, in order.
func shownTurns(t *testing.T, msgs []runner.Message) string {
	t.Helper()
	if len(msgs) != 2 || msgs[0].Role != "system" || msgs[1].Role != "user" {
		t.Fatalf("messages = %+v, want system + user", msgs)
	}
	var out []string
	for _, m := range turnTextRE.FindAllStringSubmatch(msgs[1].Content, -1) {
		out = append(out, m[2])
	}
	return strings.Join(out, " ")
}

func TestBuildWindow(t *testing.T) {
	tests := []struct {
		name    string
		roles   string
		window  int
		shown   string
		omitted string // the gap line, "" when none
		header  string
	}{
		{"last N turns of any role", "datdatdatdatdatdatda", 14, "06 07 08 09 10 11 12 13 14 15 16 17 18 19", "", "(14 of the 20 turns"},
		{"zero means the default 14", "datdatdatdatdatdatda", 0, "06 07 08 09 10 11 12 13 14 15 16 17 18 19", "", "(14 of the 20 turns"},
		{"N = 1 at an agent turn", "dada", 1, "03", "", "(1 of the 4 turns"},
		{"N = 3 counts tool turns", "datta", 3, "02 03 04", "", "(3 of the 5 turns"},
		{"window larger than the session", "dat", 14, "00 01 02", "", "(3 of the 3 turns"},
		{"agent turn pinned when N = 1 would cut it", "datt", 1, "01", "[... 2 turns not shown ...]", "(1 of the 4 turns"},
		{"agent turn pinned, then the last N-1", "dadattt", 3, "03 05 06", "[... 1 turn not shown ...]", "(3 of the 7 turns"},
		{"agent turn just inside the window", "dadattt", 4, "03 04 05 06", "", "(4 of the 7 turns"},
		{"system and command turns count too", "dasad", 2, "03 04", "", "(2 of the 5 turns"},
		{"no agent turn: plain window", "dtdt", 2, "02 03", "", "(2 of the 4 turns"},
		{"one turn", "a", 14, "00", "", "(1 of the 1 turn before"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, _, err := Build(PromptInput{Turns: mkTurns(tt.roles)}, PromptOptions{Window: tt.window})
			if err != nil {
				t.Fatal(err)
			}
			if got := shownTurns(t, msgs); got != tt.shown {
				t.Errorf("shown turns = %q, want %q", got, tt.shown)
			}
			gap := regexp.MustCompile(`\[\.\.\. \d+ turns? not shown \.\.\.\]`).FindString(msgs[1].Content)
			if gap != tt.omitted {
				t.Errorf("gap line = %q, want %q", gap, tt.omitted)
			}
			if !strings.Contains(msgs[1].Content, tt.header) {
				t.Errorf("header %q missing:\n%s", tt.header, msgs[1].Content)
			}
		})
	}
}

// TestBuildAlwaysShowsLatestAgentTurn: for every N and every position of the
// latest agent turn, the prompt shows it, and shows min(N, turns) turns.
func TestBuildAlwaysShowsLatestAgentTurn(t *testing.T) {
	for tail := 0; tail < 12; tail++ {
		roles := "dadat" + "a" + strings.Repeat("t", tail)
		turns := mkTurns(roles)
		latest := fmt.Sprintf("%02d", 5)
		for n := 1; n <= 16; n++ {
			msgs, _, err := Build(PromptInput{Turns: turns}, PromptOptions{Window: n})
			if err != nil {
				t.Fatal(err)
			}
			shown := strings.Fields(shownTurns(t, msgs))
			if len(shown) != min(n, len(turns)) {
				t.Errorf("tail %d, N %d: %d turns shown, want %d", tail, n, len(shown), min(n, len(turns)))
			}
			found := false
			for _, s := range shown {
				found = found || s == latest
			}
			if !found {
				t.Errorf("tail %d, N %d: the latest agent turn is missing: %v", tail, n, shown)
			}
		}
	}
}

func TestBuildHistory(t *testing.T) {
	hist := []string{"newest msg", "older msg", "oldest msg"} // most recent first, as queries.ProfileHistory gives them
	tests := []struct {
		k    int
		want []string // in the order shown
	}{
		{0, nil},
		{1, []string{"newest msg"}},
		{2, []string{"older msg", "newest msg"}},
		{10, []string{"oldest msg", "older msg", "newest msg"}},
	}
	re := regexp.MustCompile(`\[developer, earlier session\]\n([^\n]*)`)
	for _, tt := range tests {
		t.Run(fmt.Sprintf("K=%d", tt.k), func(t *testing.T) {
			msgs, _, err := Build(PromptInput{Turns: mkTurns("da"), History: hist}, PromptOptions{History: tt.k})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range re.FindAllStringSubmatch(msgs[1].Content, -1) {
				got = append(got, m[1])
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("history shown = %q, want %q", got, tt.want)
			}
			hasBlock := strings.Contains(msgs[1].Content, "earlier sessions")
			if hasBlock != (tt.k > 0) {
				t.Errorf("history block present = %v with K = %d", hasBlock, tt.k)
			}
			// The history comes before the conversation.
			if tt.k > 0 && strings.Index(msgs[1].Content, "earlier session]") > strings.Index(msgs[1].Content, "The conversation so far") {
				t.Error("history after the conversation")
			}
		})
	}
}

func TestBuildConditions(t *testing.T) {
	in := PromptInput{Developer: "ann", Turns: mkTurns("dada"), Persona: "PERSONA: blunt, repeats herself"}
	var users []string
	tests := []struct {
		cond    string
		want    []string
		notWant []string
	}{
		{CondProfile, []string{"role-playing a software developer", "PERSONA: blunt", "earlier sessions"}, []string{"terse senior engineer"}},
		{CondNoProfile, []string{"role-playing a software developer", "a real developer"}, []string{"PERSONA", "terse"}},
		{CondTerse, []string{"role-playing a software developer", "terse senior engineer", "Do not ask clarifying questions", "under 12 words"}, []string{"PERSONA", "earlier sessions"}},
		{"", []string{"a real developer"}, []string{"PERSONA", "terse"}}, // "" is noprofile
	}
	for _, tt := range tests {
		t.Run("condition "+tt.cond, func(t *testing.T) {
			msgs, _, err := Build(in, PromptOptions{Condition: tt.cond})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(msgs[0].Content, w) {
					t.Errorf("system prompt lacks %q:\n%s", w, msgs[0].Content)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(msgs[0].Content, w) || strings.Contains(msgs[1].Content, w) {
					t.Errorf("prompt holds %q", w)
				}
			}
			if strings.Contains(msgs[0].Content+msgs[1].Content, "ann") {
				t.Error("the developer's name entered the prompt")
			}
			if !strings.HasSuffix(msgs[1].Content, "no quotes, no role label, no explanation.") {
				t.Errorf("the task framing does not close the user message:\n%s", msgs[1].Content)
			}
			users = append(users, msgs[1].Content)
		})
	}
	for _, u := range users[1:] {
		if u != users[0] {
			t.Error("the conversation part differs between conditions")
		}
	}

	errs := []struct {
		name string
		in   PromptInput
		opts PromptOptions
	}{
		{"profile without persona", PromptInput{Turns: mkTurns("da")}, PromptOptions{Condition: CondProfile}},
		{"unknown condition", in, PromptOptions{Condition: "persona"}},
		{"negative window", in, PromptOptions{Window: -1}},
		{"negative history", in, PromptOptions{History: -2}},
	}
	for _, tt := range errs {
		t.Run("error: "+tt.name, func(t *testing.T) {
			if _, _, err := Build(tt.in, tt.opts); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestBuildTruncation(t *testing.T) {
	long := strings.Repeat("é", 5000) // multi-byte: caps count characters, not bytes
	in := PromptInput{Turns: []ub.Turn{{Role: "agent", Text: long}, {Role: "tool", Text: long}}, History: []string{long}}
	msgs, _, err := Build(in, PromptOptions{History: 1})
	if err != nil {
		t.Fatal(err)
	}
	u := msgs[1].Content
	// tool at 2000: 1333 head + 667 tail, 3000 cut; history at 1000: 4000 cut;
	// the agent turn (5000 <= 8000) whole.
	for _, want := range []string{"[... 3000 characters cut ...]", "[... 4000 characters cut ...]", "[agent]\n" + long + "\n"} {
		if !strings.Contains(u, want) {
			t.Errorf("missing %.40q", want)
		}
	}
	msgs, _, _ = Build(in, PromptOptions{TurnCap: 300, ToolCap: 30, HistoryCap: 3})
	for _, want := range []string{"[... 4700 characters cut ...]", "[... 4970 characters cut ...]"} {
		if !strings.Contains(msgs[1].Content, want) {
			t.Errorf("custom caps: missing %q", want)
		}
	}
	if got := cut("abcdefghij", 6); got != "abcd\n[... 4 characters cut ...]\nij" {
		t.Errorf("cut = %q", got)
	}
	// Empty turns are shown as such, not dropped (they still count in N).
	msgs, _, _ = Build(PromptInput{Turns: []ub.Turn{{Role: "agent", Text: "  "}}}, PromptOptions{})
	if !strings.Contains(msgs[1].Content, "[agent]\n(empty)") {
		t.Errorf("empty turn:\n%s", msgs[1].Content)
	}
}

func TestBuildDeterministic(t *testing.T) {
	in := PromptInput{Turns: mkTurns("datdatdatdatdatdatdatda"), History: []string{"a", "b"}, Persona: "p"}
	opts := PromptOptions{Condition: CondProfile, Window: 5, History: 2}
	m1, v1, err1 := Build(in, opts)
	m2, v2, err2 := Build(in, opts)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(m1, m2) || v1 != v2 {
		t.Error("two builds of the same input differ")
	}
}

// templatesWith returns the embedded templates with one file replaced.
func templatesWith(t *testing.T, name, text string) *Templates {
	t.Helper()
	m := fstest.MapFS{}
	sub, _ := fs.Sub(templateFS, "templates")
	names, _ := fs.Glob(sub, "*.txt")
	for _, n := range names {
		b, _ := fs.ReadFile(sub, n)
		m[n] = &fstest.MapFile{Data: b}
	}
	if name != "" {
		m[name] = &fstest.MapFile{Data: []byte(text)}
	}
	ts, err := LoadTemplates(m)
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func TestTemplateVersion(t *testing.T) {
	in := PromptInput{Turns: mkTurns("dada"), History: []string{"h"}, Persona: "p"}
	version := func(opts PromptOptions) string {
		t.Helper()
		_, v, err := Build(in, opts)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := PromptTemplate(opts)
		if err != nil || rec.Version != v {
			t.Fatalf("PromptTemplate version %q, Build's %q (%v)", rec.Version, v, err)
		}
		if len(v) != 12 {
			t.Errorf("version %q is not 12 hex digits", v)
		}
		return v
	}
	base := map[string]string{}
	for _, c := range []string{CondProfile, CondNoProfile, CondTerse} {
		base[c] = version(PromptOptions{Condition: c})
		if again := version(PromptOptions{Condition: c, Templates: templatesWith(t, "", "")}); again != base[c] {
			t.Errorf("%s: the same templates loaded again give version %s, want %s", c, again, base[c])
		}
		if v := version(PromptOptions{Condition: c, Window: 3, History: 1}); v != base[c] {
			t.Errorf("%s: N and K changed the template version", c)
		}
	}
	if base[CondProfile] == base[CondNoProfile] || base[CondNoProfile] == base[CondTerse] || base[CondProfile] == base[CondTerse] {
		t.Errorf("conditions share a version: %v", base)
	}
	tests := []struct {
		file    string
		changes []string // conditions whose version must change; the others must not
	}{
		{"task.txt", []string{CondProfile, CondNoProfile, CondTerse}},
		{"context.txt", []string{CondProfile, CondNoProfile, CondTerse}},
		{"terse.txt", []string{CondTerse}},
		{"profile.txt", []string{CondProfile}},
		{"persona.txt", nil}, // the persona text is in the messages (and the key), not the layout
	}
	for _, tt := range tests {
		t.Run("change "+tt.file, func(t *testing.T) {
			ts := templatesWith(t, tt.file, "changed {{/* */}}text\n")
			for _, c := range []string{CondProfile, CondNoProfile, CondTerse} {
				v := version(PromptOptions{Condition: c, Templates: ts})
				want := false
				for _, w := range tt.changes {
					want = want || w == c
				}
				if (v != base[c]) != want {
					t.Errorf("%s: version %s (was %s), change expected %v", c, v, base[c], want)
				}
			}
		})
	}
	if v := version(PromptOptions{ToolCap: 500}); v == base[CondNoProfile] {
		t.Error("a different tool cap kept the version")
	}
}

func TestEmbeddedTemplates(t *testing.T) {
	want := []string{"context.txt", "distill.txt", "noprofile.txt", "persona.txt", "profile.txt", "task.txt", "terse.txt"}
	if got := DefaultTemplates().Names(); !reflect.DeepEqual(got, want) {
		t.Errorf("templates = %v, want %v", got, want)
	}
	for _, r := range []TemplateRecord{PersonaTemplate(), DistillTemplate()} {
		if len(r.Version) != 12 || r.Text == "" {
			t.Errorf("record %+v", r)
		}
	}
	if _, err := LoadTemplates(fstest.MapFS{"bad.txt": {Data: []byte("{{.X")}}); err == nil {
		t.Error("a broken template loaded")
	}
}

func TestLatestAgentTurn(t *testing.T) {
	if s, ok := LatestAgentTurn(mkTurns("dadatt")); !ok || s != "t03" {
		t.Errorf("latest agent turn = %q %v", s, ok)
	}
	if _, ok := LatestAgentTurn(mkTurns("dt")); ok {
		t.Error("found an agent turn in none")
	}
}
