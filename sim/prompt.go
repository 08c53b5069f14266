package sim

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/sim/runner"
	"io/fs"
	"sort"
	"strings"
	"text/template"
)

// promptLayout versions what Build's code (not the templates) decides: the
// window rule, the cut marker, the message split. Bump it when that changes,
// so the template version changes too.
const promptLayout = 1

// Default truncation caps, in characters (code points).
const (
	DefaultToolCap    = 2000 // a tool or system turn
	DefaultTurnCap    = 8000 // a developer or agent turn
	DefaultHistoryCap = 1000 // one earlier-session message
)

//go:embed templates/*.txt
var templateFS embed.FS

// PromptInput is everything a prompt is built from, as plain data.
type PromptInput struct {
	Developer string    // for error messages only; the name never enters a prompt
	Turns     []ub.Turn // the session's turns before the moment, oldest first
	History   []string  // the developer's earlier-session messages, MOST RECENT FIRST; Build uses the first K
	Persona   string    // the persona text (profile condition)
}

// PromptOptions configures Build. The zero value is valid: the noprofile
// condition, N = DefaultWindow, no history, the default caps and the
// embedded templates.
type PromptOptions struct {
	Condition  string     // CondProfile | CondNoProfile | CondTerse; "" means CondNoProfile
	Window     int        // N, turns before the moment; 0 means DefaultWindow
	History    int        // K, earlier-session messages; 0 means none
	ToolCap    int        // 0 means DefaultToolCap
	TurnCap    int        // 0 means DefaultTurnCap
	HistoryCap int        // 0 means DefaultHistoryCap
	Templates  *Templates // nil means the embedded templates
}

func (o PromptOptions) withDefaults() PromptOptions {
	if o.Condition == "" {
		o.Condition = CondNoProfile
	}
	if o.Window == 0 {
		o.Window = DefaultWindow
	}
	if o.ToolCap == 0 {
		o.ToolCap = DefaultToolCap
	}
	if o.TurnCap == 0 {
		o.TurnCap = DefaultTurnCap
	}
	if o.HistoryCap == 0 {
		o.HistoryCap = DefaultHistoryCap
	}
	if o.Templates == nil {
		o.Templates = DefaultTemplates()
	}
	return o
}

// Templates is a set of prompt template files (Go text/template syntax), by
// file name.
type Templates struct {
	text   map[string]string
	parsed map[string]*template.Template
}

var defaultTemplates = func() *Templates {
	sub, err := fs.Sub(templateFS, "templates")
	if err != nil {
		panic(err)
	}
	t, err := LoadTemplates(sub)
	if err != nil {
		panic("sim: embedded templates: " + err.Error()) // a build defect, caught by the tests
	}
	return t
}()

// DefaultTemplates returns the templates embedded from sim/templates.
func DefaultTemplates() *Templates { return defaultTemplates }

// LoadTemplates reads every *.txt file at the root of fsys as a template.
func LoadTemplates(fsys fs.FS) (*Templates, error) {
	names, err := fs.Glob(fsys, "*.txt")
	if err != nil {
		return nil, err
	}
	t := &Templates{text: map[string]string{}, parsed: map[string]*template.Template{}}
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		p, err := template.New(n).Option("missingkey=error").Funcs(templateFuncs).Parse(string(b))
		if err != nil {
			return nil, fmt.Errorf("template %s: %w", n, err)
		}
		t.text[n], t.parsed[n] = string(b), p
	}
	return t, nil
}

// Names lists the template files, sorted.
func (t *Templates) Names() []string {
	out := make([]string, 0, len(t.text))
	for n := range t.text {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (t *Templates) exec(name string, data any) (string, error) {
	p, ok := t.parsed[name]
	if !ok {
		return "", fmt.Errorf("no template %s", name)
	}
	var b strings.Builder
	if err := p.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// TemplateRecord is one versioned prompt layout as stored in prompt_templates:
// Text is a header naming what else shapes the prompt (condition, caps)
// followed by every template file used, each under a "## NAME" line; Version
// is the short sha256 of Text (12 hex digits).
type TemplateRecord struct {
	Version string
	Name    string
	Text    string
}

func record(t *Templates, name, header string, files ...string) (TemplateRecord, error) {
	var b strings.Builder
	b.WriteString(header)
	b.WriteByte('\n')
	for _, f := range files {
		txt, ok := t.text[f]
		if !ok {
			return TemplateRecord{}, fmt.Errorf("no template %s", f)
		}
		fmt.Fprintf(&b, "## %s\n%s", f, txt)
		if !strings.HasSuffix(txt, "\n") {
			b.WriteByte('\n')
		}
	}
	h := sha256.Sum256([]byte(b.String()))
	return TemplateRecord{Version: hex.EncodeToString(h[:6]), Name: name, Text: b.String()}, nil
}

// prefixFile names the system-prompt template of a condition.
func prefixFile(cond string) (string, error) {
	switch cond {
	case CondProfile, CondNoProfile, CondTerse:
		return cond + ".txt", nil
	}
	return "", fmt.Errorf("condition %q is not profile, noprofile or terse", cond)
}

// PromptTemplate returns the versioned layout of the prompts Build makes with
// opts: the files used (the condition's prefix, context.txt, task.txt) and the
// caps. Its Version is the one Build returns; it does not depend on N, K or
// the input, which generations record separately.
func PromptTemplate(opts PromptOptions) (TemplateRecord, error) {
	o := opts.withDefaults()
	pf, err := prefixFile(o.Condition)
	if err != nil {
		return TemplateRecord{}, err
	}
	header := fmt.Sprintf("# ub prompt: layout=%d condition=%s tool_cap=%d turn_cap=%d history_cap=%d",
		promptLayout, o.Condition, o.ToolCap, o.TurnCap, o.HistoryCap)
	return record(o.Templates, "prompt/"+o.Condition, header, pf, "context.txt", "task.txt")
}

// shownTurn is one turn as context.txt renders it.
type shownTurn struct {
	Role         string
	Text         string
	OmittedAfter int // turns left out between this turn and the next shown one (or the moment)
}

// window picks the turns a prompt shows: the last n, with the agent's latest
// turn pinned into the first slot when the last n miss it (see Build).
func window(turns []ub.Turn, n int) (shown []ub.Turn, omittedAfterFirst int) {
	if n >= len(turns) {
		return turns, 0
	}
	start := len(turns) - n
	latest := -1
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Role == "agent" {
			latest = i
			break
		}
	}
	if latest < 0 || latest >= start {
		return turns[start:], 0
	}
	tail := turns[len(turns)-(n-1):]
	shown = append([]ub.Turn{turns[latest]}, tail...)
	return shown, len(turns) - (n - 1) - (latest + 1)
}

// cut shortens s to at most max code points plus a marker line, keeping the
// head (two thirds) and the tail (one third).
func cut(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	head := max * 2 / 3
	tail := max - head
	return string(r[:head]) + fmt.Sprintf("\n[... %d characters cut ...]\n", len(r)-head-tail) + string(r[len(r)-tail:])
}

func turnText(t ub.Turn, o PromptOptions) string {
	s := strings.TrimSpace(t.Text)
	if s == "" {
		return "(empty)"
	}
	if t.Role == "tool" || t.Role == "system" {
		return cut(s, o.ToolCap)
	}
	return cut(s, o.TurnCap)
}

// Build assembles the messages a model simulator is sent for one moment, and
// the version of the template layout used (see PromptTemplate). It is
// deterministic: the same input and options give the same messages. Errors:
// an unknown condition, a negative window or history, the profile condition
// without a persona text, a template that does not execute.
//
// The prompt (SPEC section 3) is two messages:
//
//	system: the condition's prefix, one of
//	        profile.txt   (a developer-role prompt + this developer's persona text),
//	        noprofile.txt (a generic developer-role prompt),
//	        terse.txt     (the developer-role prompt + a content-free terse-only
//	                       instruction, the ablation's prefix);
//	user:   context.txt (the developer's K earlier messages, oldest first, then
//	        the last N turns of the session before the moment, oldest first,
//	        each under a role label) + a blank line + task.txt (the framing:
//	        write what the developer says next, only the message).
//
// N counts turns of any role (developer, including commands, agent, tool,
// system), back from the moment. The agent's latest turn is always shown: when
// it lies before the last N turns, it takes the window's first slot and the
// window holds it plus the last N-1 turns, with a "[... g turns not shown ...]"
// line between them, so a prompt shows exactly min(N, turns available) turns
// whatever the roles. Long turns are cut in the middle (head two thirds, tail
// one third, a "[... c characters cut ...]" line between): tool and system turns
// at ToolCap (2000) characters, developer and agent turns at TurnCap (8000),
// each earlier-session message at HistoryCap (1000). Characters are Unicode
// code points.
func Build(in PromptInput, opts PromptOptions) ([]runner.Message, string, error) {
	o := opts.withDefaults()
	rec, err := PromptTemplate(o)
	if err != nil {
		return nil, "", err
	}
	if o.Window < 0 || o.History < 0 {
		return nil, "", fmt.Errorf("window %d and history %d must not be negative", o.Window, o.History)
	}
	persona := strings.TrimSpace(in.Persona)
	if o.Condition == CondProfile && persona == "" {
		return nil, "", fmt.Errorf("developer %s: the profile condition needs a persona text (run ub profile)", in.Developer)
	}
	system, err := o.Templates.exec(o.Condition+".txt", struct{ Persona string }{persona})
	if err != nil {
		return nil, "", err
	}

	shown, omitted := window(in.Turns, o.Window)
	data := struct {
		History      []string
		Turns        []shownTurn
		Shown, Total int
	}{Shown: len(shown), Total: len(in.Turns)}
	for i, t := range shown {
		st := shownTurn{Role: string(t.Role), Text: turnText(t, o)}
		if i == 0 {
			st.OmittedAfter = omitted
		}
		data.Turns = append(data.Turns, st)
	}
	k := min(o.History, len(in.History))
	for i := k - 1; i >= 0; i-- { // most recent first in, oldest first out
		h := strings.TrimSpace(in.History[i])
		if h == "" {
			h = "(empty)"
		}
		data.History = append(data.History, cut(h, o.HistoryCap))
	}
	ctxText, err := o.Templates.exec("context.txt", data)
	if err != nil {
		return nil, "", err
	}
	task, err := o.Templates.exec("task.txt", nil)
	if err != nil {
		return nil, "", err
	}
	user := strings.TrimSpace(ctxText) + "\n\n" + strings.TrimSpace(task)
	return []runner.Message{
		{Role: "system", Content: strings.TrimSpace(system)},
		{Role: "user", Content: user},
	}, rec.Version, nil
}

// LatestAgentTurn returns the text of the last agent turn of turns (the
// turns before a moment), and false when there is none.
func LatestAgentTurn(turns []ub.Turn) (string, bool) {
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Role == "agent" {
			return turns[i].Text, true
		}
	}
	return "", false
}
