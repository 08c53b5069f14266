package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/ingest/lines"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Claude Code session transcripts: ~/.claude/projects/<encoded-cwd>/<id>.jsonl,
// one JSON object per line, appended as things happen. The rules below turn
// them into sessions; the README repeats them for users.
//
// Developer turns are what the developer typed (the "developer prompts" of
// ../shared/corpus/claude-code/README.md):
//   - user lines whose message.content is a string or a list of text/image
//     blocks, holding no tool_result, not isMeta, not isSidechain, not
//     isCompactSummary, with origin.kind absent or "human" and promptSource
//     not "system", and whose text does not start with a wrapper
//     (claudeWrappers);
//   - queued_command attachments (a prompt typed while the agent was busy)
//     with commandMode "prompt" or absent, origin.kind absent or "human"
//     (older versions write no origin), not isMeta. When the same prompt is
//     also written as a user line right after (promptSource "queued" or
//     absent), it is kept once, at its first occurrence.
//
// IDE context (<ide_opened_file>, <ide_selection>) is cut from the typed text
// and kept in Meta["ide"]; <system-reminder> blocks after the typed text are
// cut; image blocks become "[image]" (the base64 data is never kept).
// Developer text is trimmed; a prompt left empty is dropped.
//
// Commands are developer turns with IsCommand set, so they are not moments
// and not counted as prompts: a slash command (<command-name> wrappers, in a
// user line or a system local_command line) is "/name args"; a `!` shell
// escape (<bash-input>) is "!command". Their output is not the developer's:
// <bash-stdout>/<bash-stderr> become a tool turn, <local-command-stdout> a
// system turn (ANSI escapes removed), the <local-command-caveat> boilerplate
// is dropped.
//
// Other user text that is not a prompt (isMeta context such as skill bodies,
// system reminders, task notifications, interruption markers, compaction
// summaries, messages from other sessions) becomes a system turn with
// Meta["kind"]. Assistant text blocks become agent turns (consecutive text
// blocks of one message.id merged); thinking blocks are dropped; tool_use
// blocks and tool_result blocks become tool turns; messages whose model is
// "<synthetic>" (made up by Claude Code) become system turns. System lines
// with text (away_summary, compact_boundary, ...) become system turns;
// turn_duration and bridge_status lines, all other attachments, file
// history, queue operations and mode lines are dropped. Long tool results
// and injected context are cut to claudeMaxText bytes in Text (Meta keeps
// the full length).
//
// Sub-agent lines (isSidechain) are dropped: their "user" prompts are the
// agent's. A line whose uuid was already read is dropped (a replay).
//
// A file is normally one session; lines are grouped by sessionId (lines
// without one join the session of the line before; a file with none gets a
// StableID), and sessions are emitted at the end of the file in order of
// first appearance, so memory holds the sessions of one file. Session.Repo is
// the first cwd (the real path, not the lossy folder name); Meta["cwds"] lists
// every cwd in order when it changed; Meta also has the first version and
// gitBranch and the last ai-title and custom-title. Developer is left empty.
//
// A line that is not valid JSON is reported and skipped, and the rest of the
// session is kept: a cut final line is the normal state of a transcript still
// being written. A NUL byte or invalid UTF-8 (other than a final line cut
// inside a character) rejects the whole file: no session.

const (
	claudeMaxText  = 8 << 10 // bytes of a tool result or injected context kept in Turn.Text
	claudeMaxInput = 8 << 10 // bytes of one string value kept in a tool_use input
	claudeMaxLabel = 200     // runes of the one-line rendering of a tool call
)

// claudeKind is what a user text is, judged from its opening wrapper.
type claudeKind int

const (
	claudePrompt        claudeKind = iota // typed by the developer
	claudeSlash                           // slash command: developer, IsCommand
	claudeBashInput                       // `!` shell escape: developer, IsCommand
	claudeBashOutput                      // output of a shell escape: tool
	claudeCommandOutput                   // output of a slash command: system
	claudeCaveat                          // boilerplate before command output: dropped
	claudeOther                           // injected by Claude Code: system
)

// claudeWrappers are the openings of user text that the developer did not
// type. The list is the claude-code README's, plus <local-command-stderr>,
// the un-tagged caveat and "Stop hook feedback:" (hook output; seen in
// exports).
var claudeWrappers = []struct {
	prefix string
	kind   claudeKind
	label  string
}{
	{"<command-name>", claudeSlash, "slash_command"},
	{"<command-message>", claudeSlash, "slash_command"},
	{"<command-args>", claudeSlash, "slash_command"},
	{"<local-command-stdout>", claudeCommandOutput, "command_output"},
	{"<local-command-stderr>", claudeCommandOutput, "command_output"},
	{"<local-command-caveat>", claudeCaveat, "caveat"},
	{"Caveat: The messages below were generated by the user while running local commands", claudeCaveat, "caveat"},
	{"<bash-input>", claudeBashInput, "bash_input"},
	{"<bash-stdout>", claudeBashOutput, "bash_output"},
	{"<bash-stderr>", claudeBashOutput, "bash_output"},
	{"<system-reminder>", claudeOther, "system_reminder"},
	{"<task-notification>", claudeOther, "task_notification"},
	{"[Request interrupted by user", claudeOther, "interrupted"},
	{"This session is being continued from a previous conversation", claudeOther, "compact_summary"},
	{"Stop hook feedback:", claudeOther, "hook_feedback"},
}

// claudeClassify judges a user text by its opening (leading space ignored).
func claudeClassify(text string) (claudeKind, string) {
	t := strings.TrimLeft(text, " \t\r\n")
	for _, w := range claudeWrappers {
		if strings.HasPrefix(t, w.prefix) {
			return w.kind, w.label
		}
	}
	return claudePrompt, ""
}

var (
	claudeIDERE  = regexp.MustCompile(`(?s)<ide_opened_file>.*?</ide_opened_file>|<ide_selection>.*?</ide_selection>`)
	claudeANSIRE = regexp.MustCompile("\x1b\\[[0-9;?]*[ -/]*[@-~]|\x1b\\][^\x07\x1b]*(?:\x07|\x1b\\\\)")
	claudeWSRE   = regexp.MustCompile(`\s+`)
)

// claudeLine is the part of a transcript line the parser reads. Fields whose
// type varies between Claude Code versions stay raw.
type claudeLine struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	SessionID        string          `json:"sessionId"`
	SessionID2       string          `json:"session_id"`
	UUID             string          `json:"uuid"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	GitBranch        string          `json:"gitBranch"`
	Version          string          `json:"version"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	PromptSource     string          `json:"promptSource"`
	Origin           json.RawMessage `json:"origin"`
	Message          *claudeMessage  `json:"message"`
	Attachment       json.RawMessage `json:"attachment"`
	Content          json.RawMessage `json:"content"` // system lines
	AITitle          string          `json:"aiTitle"`
	CustomTitle      string          `json:"customTitle"`
}

type claudeMessage struct {
	ID      string          `json:"id"`
	Model   string          `json:"model"`
	Content json.RawMessage `json:"content"`
	Usage   json.RawMessage `json:"usage"`
}

// claudeBlock is one content block of a message (also the JSON bodies of
// exported sessions).
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type claudeAttachment struct {
	Type        string          `json:"type"`
	Prompt      json.RawMessage `json:"prompt"`
	CommandMode string          `json:"commandMode"`
	Origin      json.RawMessage `json:"origin"`
	IsMeta      bool            `json:"isMeta"`
}

// claudeOriginKind returns origin.kind, "" when absent or unreadable.
func claudeOriginKind(raw json.RawMessage) string {
	var o struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &o) != nil {
		return ""
	}
	return o.Kind
}

// claudeContent decodes message content: a string, or a list of blocks.
func claudeContent(raw json.RawMessage) (text string, blocks []claudeBlock, isText bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil, true, nil
	}
	if raw[0] == '"' {
		err = json.Unmarshal(raw, &text)
		return text, nil, true, err
	}
	err = json.Unmarshal(raw, &blocks)
	return "", blocks, false, err
}

// claudeSession gathers the turns of one session while the file is read.
type claudeSession struct {
	id          string
	line        int
	started     time.Time
	cwds        []string
	version     string
	branch      string
	aiTitle     string
	customTitle string
	turns       []ub.Turn
	seen        map[string]bool   // uuids, to skip replayed lines
	toolNames   map[string]string // tool_use id -> tool name
	export      bool              // merge consecutive agent text without message ids
	// queued holds the normalized text of queued_command prompts not yet
	// matched by a user line, since the last other developer prompt.
	queued []string
	// lastQueuedUser is the text of the latest developer prompt when it was a
	// user line with promptSource "queued", for a queued_command written after it.
	lastQueuedUser string
}

func newClaudeSession(id string, line int) *claudeSession {
	return &claudeSession{id: id, line: line, seen: map[string]bool{}, toolNames: map[string]string{}}
}

func (s *claudeSession) note(l *claudeLine, ts time.Time) {
	if s.started.IsZero() && !ts.IsZero() {
		s.started = ts
	}
	if l.Cwd != "" && !slices.Contains(s.cwds, l.Cwd) {
		s.cwds = append(s.cwds, l.Cwd)
	}
	if s.version == "" {
		s.version = l.Version
	}
	if s.branch == "" {
		s.branch = l.GitBranch
	}
}

func (s *claudeSession) add(t ub.Turn) { s.turns = append(s.turns, t) }

// developer adds a typed prompt, keeping a prompt written both as a
// queued_command attachment and as a user line once.
func (s *claudeSession) developer(text string, ts time.Time, meta map[string]any, queuedAttachment bool, promptSource string) {
	key := strings.TrimSpace(text)
	if queuedAttachment {
		if s.lastQueuedUser != "" && s.lastQueuedUser == key {
			s.lastQueuedUser = ""
			return
		}
		s.queued = append(s.queued, key)
	} else {
		if promptSource == "" || promptSource == "queued" {
			for i, q := range s.queued {
				if q == key {
					s.queued = append(s.queued[:i], s.queued[i+1:]...)
					return
				}
			}
		}
		s.queued = s.queued[:0]
		s.lastQueuedUser = ""
		if promptSource == "queued" {
			s.lastQueuedUser = key
		}
	}
	s.add(ub.Turn{Role: ub.RoleDeveloper, Text: text, TS: ts, Meta: meta})
}

// agentText adds assistant text, merged into the previous agent turn when it
// is the same API message.
func (s *claudeSession) agentText(text, msgID, model string, usage map[string]any, ts time.Time, line int) {
	if n := len(s.turns); n > 0 {
		last := &s.turns[n-1]
		if last.Role == ub.RoleAgent {
			id, _ := last.Meta["message_id"].(string)
			if (msgID != "" && id == msgID) || (s.export && msgID == "" && id == "") {
				last.Text += "\n\n" + text
				if usage != nil {
					last.Meta["usage"] = usage
				}
				return
			}
		}
	}
	meta := map[string]any{"line": line}
	if msgID != "" {
		meta["message_id"] = msgID
	}
	if model != "" {
		meta["model"] = model
	}
	if usage != nil {
		meta["usage"] = usage
	}
	s.add(ub.Turn{Role: ub.RoleAgent, Text: text, TS: ts, Meta: meta})
}

// toolUse adds a tool call.
func (s *claudeSession) toolUse(b *claudeBlock, ts time.Time, line int) {
	var input any
	if len(b.Input) > 0 {
		_ = json.Unmarshal(b.Input, &input)
	}
	input = claudeCapStrings(input)
	if b.ID != "" {
		s.toolNames[b.ID] = b.Name
	}
	s.add(ub.Turn{Role: ub.RoleTool, Text: claudeToolLabel(b.Name, input), TS: ts, Meta: map[string]any{
		"line":     line,
		"tool_use": map[string]any{"id": b.ID, "name": b.Name, "input": input},
	}})
}

// toolResult adds what a tool returned.
func (s *claudeSession) toolResult(b *claudeBlock, ts time.Time, line int) {
	text := claudeResultText(b.Content)
	res := map[string]any{"tool_use_id": b.ToolUseID, "is_error": b.IsError}
	if name := s.toolNames[b.ToolUseID]; name != "" {
		res["name"] = name
	}
	text, cut := claudeCap(text, claudeMaxText)
	if cut > 0 {
		res["bytes"] = cut
		res["truncated"] = true
	}
	s.add(ub.Turn{Role: ub.RoleTool, Text: text, TS: ts, Meta: map[string]any{"line": line, "tool_result": res}})
}

// system adds a turn written by Claude Code itself.
func (s *claudeSession) system(text, kind string, ts time.Time, line int, extra map[string]any) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	meta := map[string]any{"line": line, "kind": kind}
	for k, v := range extra {
		meta[k] = v
	}
	text, cut := claudeCap(text, claudeMaxText)
	if cut > 0 {
		meta["bytes"] = cut
	}
	s.add(ub.Turn{Role: ub.RoleSystem, Text: text, TS: ts, Meta: meta})
}

// userFlags are the facts of a user line beyond its content.
type userFlags struct {
	isMeta, compact bool
	origin          string // origin.kind
	promptSource    string
	queued          bool // a queued_command attachment
}

// user turns the content of a user message into turns.
func (s *claudeSession) user(text string, blocks []claudeBlock, isText bool, f userFlags, ts time.Time, line int) {
	if !isText {
		hasResult := false
		for i := range blocks {
			if blocks[i].Type == "tool_result" {
				hasResult = true
				break
			}
		}
		if hasResult {
			for i := range blocks {
				b := &blocks[i]
				switch b.Type {
				case "tool_result":
					s.toolResult(b, ts, line)
				case "text":
					_, label := claudeClassify(b.Text)
					if label == "" {
						label = "tool_result_text"
					}
					s.system(b.Text, label, ts, line, nil)
				}
			}
			return
		}
	}
	parts, ide, images := claudeUserParts(text, blocks, isText)
	first := ""
	if len(parts) > 0 {
		first = parts[0]
	}
	kind, label := claudeClassify(first)
	switch {
	case f.compact:
		kind, label = claudeOther, "compact_summary"
	case f.origin != "" && f.origin != "human":
		kind, label = claudeOther, "origin_"+f.origin
	case f.isMeta && kind != claudeCaveat:
		kind = claudeOther
		if label == "" {
			label = "meta"
		}
	case kind == claudePrompt && f.promptSource == "system":
		kind, label = claudeOther, "prompt_source_system"
	}
	if f.queued && kind != claudePrompt {
		return // queued notifications reach the transcript again as user lines
	}
	switch kind {
	case claudePrompt:
		keep := parts[:0:0]
		for i, p := range parts {
			if i > 0 && strings.HasPrefix(p, "<system-reminder>") {
				continue
			}
			keep = append(keep, p)
		}
		typed := strings.TrimSpace(strings.Join(keep, "\n"))
		if typed == "" {
			return
		}
		meta := map[string]any{"line": line}
		if len(ide) > 0 {
			meta["ide"] = ide
		}
		if f.promptSource != "" {
			meta["prompt_source"] = f.promptSource
		}
		if f.queued {
			meta["queued"] = true
		}
		if images > 0 {
			meta["images"] = images
		}
		s.developer(typed, ts, meta, f.queued, f.promptSource)
	case claudeSlash:
		all := strings.Join(parts, "\n")
		s.add(ub.Turn{Role: ub.RoleDeveloper, Text: claudeSlashText(all), TS: ts, IsCommand: true,
			Meta: map[string]any{"line": line, "kind": label}})
	case claudeBashInput:
		cmd := strings.TrimSpace(claudeTag(strings.Join(parts, "\n"), "bash-input"))
		s.add(ub.Turn{Role: ub.RoleDeveloper, Text: "!" + cmd, TS: ts, IsCommand: true,
			Meta: map[string]any{"line": line, "kind": label}})
	case claudeBashOutput:
		all := strings.Join(parts, "\n")
		out := claudeTag(all, "bash-stdout")
		if e := strings.TrimSpace(claudeTag(all, "bash-stderr")); e != "" {
			out = strings.TrimRight(out, "\n") + "\n" + e
		}
		res := map[string]any{"kind": label}
		out, cut := claudeCap(strings.TrimSpace(out), claudeMaxText)
		if cut > 0 {
			res["bytes"] = cut
		}
		res["line"] = line
		s.add(ub.Turn{Role: ub.RoleTool, Text: out, TS: ts, Meta: res})
	case claudeCommandOutput:
		all := strings.Join(parts, "\n")
		out := claudeTag(all, "local-command-stdout")
		if strings.HasPrefix(strings.TrimSpace(all), "<local-command-stderr>") {
			out = claudeTag(all, "local-command-stderr")
		}
		s.system(claudeANSIRE.ReplaceAllString(out, ""), label, ts, line, nil)
	case claudeCaveat:
		// boilerplate
	default:
		s.system(strings.Join(parts, "\n"), label, ts, line, nil)
	}
}

// claudeUserParts renders user content as text parts: text blocks with IDE
// wrappers cut (returned apart), images as "[image]".
func claudeUserParts(text string, blocks []claudeBlock, isText bool) (parts, ide []string, images int) {
	addText := func(t string) {
		for _, m := range claudeIDERE.FindAllString(t, -1) {
			m, _ = claudeCap(m, claudeMaxText)
			ide = append(ide, m)
		}
		t = strings.TrimSpace(claudeIDERE.ReplaceAllString(t, ""))
		if t != "" {
			parts = append(parts, t)
		}
	}
	if isText {
		addText(text)
		return parts, ide, 0
	}
	for _, b := range blocks {
		switch b.Type {
		case "text":
			addText(b.Text)
		case "image":
			parts = append(parts, "[image]")
			images++
		case "document":
			parts = append(parts, "[document]")
		}
	}
	return parts, ide, images
}

// claudeTag returns the text inside <name>...</name>, "" if there is none.
// An unclosed tag runs to the end.
func claudeTag(s, name string) string {
	open := "<" + name + ">"
	i := strings.Index(s, open)
	if i < 0 {
		return ""
	}
	s = s[i+len(open):]
	if j := strings.Index(s, "</"+name+">"); j >= 0 {
		s = s[:j]
	}
	return s
}

// claudeSlashText renders a slash command wrapper as "/name args".
func claudeSlashText(s string) string {
	name := strings.TrimSpace(claudeTag(s, "command-name"))
	if name == "" {
		name = strings.TrimSpace(claudeTag(s, "command-message"))
	}
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	if args := strings.TrimSpace(claudeTag(s, "command-args")); args != "" {
		return name + " " + args
	}
	return name
}

// claudeResultText renders tool_result content: a string, or blocks whose
// text is joined and whose images become "[image]".
func claudeResultText(raw json.RawMessage) string {
	text, blocks, isText, err := claudeContent(raw)
	if err != nil {
		return strings.ToValidUTF8(string(raw), "\uFFFD")
	}
	if isText {
		return text
	}
	var parts []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			parts = append(parts, b.Text)
		case "image":
			parts = append(parts, "[image]")
		case "":
		default:
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}

// claudeToolLabel renders a tool call on one line: "Bash: ls -la".
func claudeToolLabel(name string, input any) string {
	arg := ""
	if m, ok := input.(map[string]any); ok {
		for _, k := range []string{"command", "file_path", "notebook_path", "pattern", "path", "url", "query", "description", "prompt", "skill", "subject"} {
			if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
				arg = v
				break
			}
		}
		if arg == "" && len(m) > 0 {
			b, _ := json.Marshal(m)
			arg = string(b)
		}
	} else if input != nil {
		b, _ := json.Marshal(input)
		arg = string(b)
	}
	if name == "" {
		name = "tool"
	}
	arg = strings.TrimSpace(claudeWSRE.ReplaceAllString(arg, " "))
	if arg == "" {
		return name
	}
	if utf8.RuneCountInString(arg) > claudeMaxLabel {
		r := []rune(arg)
		arg = string(r[:claudeMaxLabel]) + "…"
	}
	return name + ": " + arg
}

// claudeCap cuts s to at most max bytes on a rune boundary and says so in the
// text; cut is the original length, 0 when s was short enough.
func claudeCap(s string, max int) (out string, cut int) {
	if len(s) <= max {
		return s, 0
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + fmt.Sprintf("\n[... truncated, %d bytes in all]", len(s)), len(s)
}

// claudeCapStrings cuts long strings inside decoded JSON, so a Write call's
// file body does not fill the database.
func claudeCapStrings(v any) any {
	switch x := v.(type) {
	case string:
		s, _ := claudeCap(x, claudeMaxInput)
		return s
	case map[string]any:
		for k, e := range x {
			x[k] = claudeCapStrings(e)
		}
	case []any:
		for i, e := range x {
			x[i] = claudeCapStrings(e)
		}
	}
	return v
}

func claudeTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// claudeUsage keeps the token counts of an API message.
func claudeUsage(raw json.RawMessage) map[string]any {
	var u map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &u) != nil {
		return nil
	}
	out := map[string]any{}
	for _, k := range []string{"input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"} {
		if v, ok := u[k].(float64); ok {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// claudeCheckBytes reports what is wrong with a line's bytes, "" if nothing.
// A final line cut inside a multi-byte character is "truncated", not binary.
func claudeCheckBytes(line []byte, terminated bool) (reason string, truncated bool) {
	if bytes.IndexByte(line, 0) >= 0 {
		return "binary data (NUL byte)", false
	}
	if utf8.Valid(line) {
		return "", false
	}
	if !terminated {
		// A rune cut by the end of the file: at most 3 trailing bytes.
		for k := 1; k <= 3 && k <= len(line); k++ {
			if utf8.Valid(line[:len(line)-k]) && !utf8.FullRune(line[len(line)-k:]) {
				return "", true
			}
		}
	}
	return invalidUTF8(line), false
}

// ParseClaudeCode parses a Claude Code session transcript (JSONL). The rules
// are in the comment at the top of this file.
func ParseClaudeCode(src Source, sink Sink) error {
	r := lines.NewReader(src.R)
	var (
		order   []*claudeSession
		byID    = map[string]*claudeSession{}
		current *claudeSession
	)
	sessionFor := func(id string, line int) *claudeSession {
		if id == "" {
			if current == nil {
				current = newClaudeSession("", line)
				order = append(order, current)
			}
			return current
		}
		if s, ok := byID[id]; ok {
			current = s
			return s
		}
		if current != nil && current.id == "" {
			// lines before the first sessionId belong to it
			current.id = id
			byID[id] = current
			return current
		}
		current = newClaudeSession(id, line)
		byID[id] = current
		order = append(order, current)
		return current
	}
	for lineNo := 1; ; lineNo++ {
		line, unterminated, ok, err := r.Next()
		if err != nil {
			return fmt.Errorf("%s:%d: read: %w", src.Path, lineNo, err)
		}
		if !ok {
			break
		}
		terminated := !unterminated
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		reason, truncated := claudeCheckBytes(line, terminated)
		if reason != "" {
			sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: reason + "; file skipped"})
			return nil
		}
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")) // byte order mark
		}
		var l claudeLine
		if err := json.Unmarshal(line, &l); err != nil {
			var se *json.SyntaxError
			switch {
			case !errors.As(err, &se):
				sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: "unexpected JSON shape: " + err.Error()})
			case truncated || !terminated:
				// The normal state of a live session file: the rest is
				// kept, and the line is read once it is whole.
				sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: "final line cut short (file still being written?): " + claudeJSONError(err), Warning: true})
			default:
				sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: "invalid JSON: " + claudeJSONError(err)})
			}
			continue
		}
		switch l.Type {
		case "user", "assistant", "attachment", "system", "ai-title", "custom-title":
		default:
			continue
		}
		if l.IsSidechain {
			continue // sub-agent traffic: the prompts are the agent's, not the developer's
		}
		id := l.SessionID
		if id == "" {
			id = l.SessionID2
		}
		s := sessionFor(id, lineNo)
		if l.UUID != "" {
			if s.seen[l.UUID] {
				continue
			}
			s.seen[l.UUID] = true
		}
		ts := claudeTime(l.Timestamp)
		if reason := s.read(&l, ts, lineNo); reason != "" {
			sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: reason})
		}
	}
	for _, s := range order {
		if err := emit(sink, s.session(src.Path)); err != nil {
			return err
		}
	}
	return nil
}

// claudeJSONError shortens a JSON error for a message.
func claudeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (offset %d)", se, se.Offset)
	}
	return err.Error()
}

// read reads one decoded line into s; it returns a reason when the line is
// malformed.
func (s *claudeSession) read(l *claudeLine, ts time.Time, line int) string {
	switch l.Type {
	case "ai-title":
		if l.AITitle != "" {
			s.aiTitle = l.AITitle
		}
		return ""
	case "custom-title":
		if l.CustomTitle != "" {
			s.customTitle = l.CustomTitle
		}
		return ""
	}
	s.note(l, ts)
	switch l.Type {
	case "user":
		if l.Message == nil {
			return "user line without message"
		}
		text, blocks, isText, err := claudeContent(l.Message.Content)
		if err != nil {
			return "user message content: " + claudeJSONError(err)
		}
		s.user(text, blocks, isText, userFlags{
			isMeta: l.IsMeta, compact: l.IsCompactSummary,
			origin: claudeOriginKind(l.Origin), promptSource: l.PromptSource,
		}, ts, line)
	case "assistant":
		if l.Message == nil {
			return "assistant line without message"
		}
		text, blocks, isText, err := claudeContent(l.Message.Content)
		if err != nil {
			return "assistant message content: " + claudeJSONError(err)
		}
		if isText {
			blocks = []claudeBlock{{Type: "text", Text: text}}
		}
		synthetic := l.Message.Model == "<synthetic>"
		for i := range blocks {
			b := &blocks[i]
			switch b.Type {
			case "text":
				if strings.TrimSpace(b.Text) == "" {
					continue
				}
				if synthetic {
					s.system(b.Text, "synthetic", ts, line, nil)
					continue
				}
				s.agentText(b.Text, l.Message.ID, l.Message.Model, claudeUsage(l.Message.Usage), ts, line)
			case "tool_use", "server_tool_use":
				s.toolUse(b, ts, line)
			}
		}
	case "attachment":
		var a claudeAttachment
		if len(l.Attachment) == 0 || json.Unmarshal(l.Attachment, &a) != nil {
			return "attachment line without a readable attachment"
		}
		if a.Type != "queued_command" || a.IsMeta || (a.CommandMode != "" && a.CommandMode != "prompt") {
			return ""
		}
		if k := claudeOriginKind(a.Origin); k != "" && k != "human" {
			return ""
		}
		text, blocks, isText, err := claudeContent(a.Prompt)
		if err != nil {
			return "queued_command prompt: " + claudeJSONError(err)
		}
		s.user(text, blocks, isText, userFlags{queued: true}, ts, line)
	case "system":
		var content string
		if len(l.Content) > 0 && json.Unmarshal(l.Content, &content) != nil {
			content = ""
		}
		switch l.Subtype {
		case "turn_duration", "bridge_status":
			return ""
		case "local_command":
			switch kind, label := claudeClassify(content); kind {
			case claudeSlash:
				s.add(ub.Turn{Role: ub.RoleDeveloper, Text: claudeSlashText(content), TS: ts, IsCommand: true,
					Meta: map[string]any{"line": line, "kind": label, "local": true}})
			case claudeCommandOutput:
				s.user(content, nil, true, userFlags{}, ts, line)
			case claudeCaveat:
			default:
				s.system(content, "local_command", ts, line, nil)
			}
		default:
			s.system(content, "system", ts, line, map[string]any{"subtype": l.Subtype})
		}
	}
	return ""
}

// session returns the finished session, nil when it has no developer prompt.
func (s *claudeSession) session(path string) *ub.Session {
	prompts := 0
	for _, t := range s.turns {
		if t.Role == ub.RoleDeveloper && !t.IsCommand {
			prompts++
		}
	}
	if prompts == 0 {
		return nil
	}
	format := "claude-code"
	if s.export {
		format = "claude-export"
	}
	id := s.id
	if id == "" {
		id = StableID(format, filepath.Base(path), fmt.Sprint(s.line))
	}
	out := &ub.Session{
		ID:         id,
		StartedAt:  s.started,
		Format:     format,
		SourceFile: path,
		Line:       s.line,
		Turns:      s.turns,
	}
	if len(s.cwds) > 0 {
		out.Repo = s.cwds[0]
	}
	meta := map[string]any{}
	if len(s.cwds) > 1 {
		meta["cwds"] = s.cwds
	}
	for k, v := range map[string]string{"version": s.version, "gitBranch": s.branch, "ai_title": s.aiTitle, "custom_title": s.customTitle} {
		if v != "" {
			meta[k] = v
		}
	}
	if len(meta) > 0 {
		out.Meta = meta
	}
	return out
}
