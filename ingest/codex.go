package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/ingest/lines"
	"strings"
	"time"
	"unicode/utf8"
)

// codexToolTextMax caps the text of a tool turn (8 KiB). Tool calls and
// results are context for the developer's next message, never something a
// simulator writes, and a single file read can be megabytes.
const codexToolTextMax = 8 << 10

// ParseCodex reads an OpenAI Codex CLI rollout (~/.codex/sessions/.../
// rollout-*.jsonl): one JSON object {"timestamp","type","payload"} per line,
// session_meta first. A file is one session.
//
// What becomes a turn, and why:
//   - developer: event_msg user_message, the text as typed. Leading
//     <environment_context>/<user_instructions> blocks and the IDE wrapper
//     ("# Context from my IDE setup: ... ## My request for Codex:") are
//     stripped; each attached image adds a line "[image]". A custom prompt
//     expanded in place (the spec-kit shape "## User Input" + fenced
//     arguments + "You **MUST** consider the user input") is reduced to the
//     arguments ("[custom prompt]" when there are none) and marked as a
//     command, as is text starting with "/".
//   - agent: event_msg agent_message, the reply as shown. The response_item
//     message role=assistant items carry the same text and are dropped; they
//     are used only when a file has no agent_message event at all (old
//     rollouts), and likewise response_item role=user messages stand in for
//     user_message events only when there are none.
//   - tool: response_item function_call, custom_tool_call and any other
//     *_call (Meta tool_call: name, call_id, arguments parsed as JSON when
//     possible), and *_call_output (Meta tool_result: call_id, name,
//     exit_code). Text is clipped to 8 KiB; a clipped turn has Meta text_bytes,
//     the original length in bytes.
//   - system: response_item messages that are injected instructions (role
//     developer or system; role user with AGENTS.md, <user_instructions> or
//     <environment_context>), Meta injected names which.
//
// Reasoning items and agent_reasoning events are dropped. Session.ID is the
// session_meta id, StartedAt its timestamp, Repo its cwd; Session.Meta has
// cli_version, originator, model_provider, source, git, the model of the
// first turn_context (models when it changes) and the last cumulative
// token_count (token_usage, model_context_window).
//
// Bad input: a line that is not JSON (a truncated last line, say) is reported
// and skipped, and the session is still emitted without it; a NUL byte or
// invalid UTF-8 anywhere (other than in an unterminated last line) rejects
// the file; a file with no session id is reported; a session with no
// developer message is skipped ("no developer message").
func ParseCodex(src Source, sink Sink) error {
	p := codexParser{path: src.Path, names: map[string]string{}}
	lr := lines.NewReader(src.R)
	for {
		line, unterminated, ok, err := lr.Next()
		if err != nil {
			return fmt.Errorf("%s:%d: read: %w", src.Path, lr.Line()+1, err)
		}
		if !ok {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		reason, fatal := p.line(lr.Line(), line, unterminated)
		if reason != "" {
			sink.Error(&ParseError{Path: src.Path, Line: lr.Line(), Reason: reason})
		}
		if fatal {
			return nil
		}
	}
	s, perr := p.session()
	if perr != nil {
		sink.Error(perr)
		return nil
	}
	return emit(sink, s)
}

// codexClip cuts s to at most max bytes on a rune boundary. cut reports
// whether anything was removed.
func codexClip(s string, max int) (out string, cut bool) {
	if len(s) <= max {
		return s, false
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i], true
}

// codexRecord is one rollout line. Old rollouts (before session_meta) have a
// first line {"id","timestamp","instructions"} and bare response items
// afterwards, with {"record_type":"state"} lines in between.
type codexRecord struct {
	Timestamp  string          `json:"timestamp"`
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	ID         string          `json:"id"`
	RecordType string          `json:"record_type"`
}

type codexMeta struct {
	ID            string `json:"id"`
	Timestamp     string `json:"timestamp"`
	Cwd           string `json:"cwd"`
	Originator    string `json:"originator"`
	CLIVersion    string `json:"cli_version"`
	ModelProvider string `json:"model_provider"`
	Source        any    `json:"source"`
	Git           any    `json:"git"`
}

type codexTurnContext struct {
	Cwd   string `json:"cwd"`
	Model string `json:"model"`
}

type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
}

type codexEvent struct {
	Type        string            `json:"type"`
	Message     string            `json:"message"`
	Images      []json.RawMessage `json:"images"`
	LocalImages []json.RawMessage `json:"local_images"`
	Info        json.RawMessage   `json:"info"`
}

// Where a turn came from, to drop duplicates once the whole file is read.
const (
	cxOther = iota
	cxEventUser
	cxEventAgent
	cxItemUser
	cxItemAgent
)

type cxTurn struct {
	ub.Turn
	from int
}

type codexParser struct {
	path     string
	meta     *codexMeta
	metaLine int
	metaTS   time.Time
	ctxCwd   string
	models   []string
	usage    any
	window   any
	turns    []cxTurn
	names    map[string]string // call_id -> tool name
	seen     [cxItemAgent + 1]bool
}

// line handles one non-blank line. It returns a reason for a bad line, and
// fatal when the whole file must be rejected.
func (p *codexParser) line(n int, line []byte, unterminated bool) (reason string, fatal bool) {
	if bytes.IndexByte(line, 0) >= 0 {
		return "binary data (NUL byte)", true
	}
	valid := json.Valid(line)
	if !utf8.Valid(line) {
		if unterminated && !valid {
			return "truncated JSON line (no newline at end of file)", false
		}
		return invalidUTF8(line), true
	}
	if !valid {
		if unterminated {
			return "truncated JSON line (no newline at end of file)", false
		}
		return "invalid JSON", false
	}
	var rec codexRecord
	if err := json.Unmarshal(line, &rec); err != nil {
		return fmt.Sprintf("not a rollout record: %v", err), false
	}
	ts := codexTime(rec.Timestamp)
	payload := rec.Payload
	typ := rec.Type
	if len(payload) == 0 || string(payload) == "null" {
		// Old rollout layout, or a line with no payload.
		switch {
		case rec.RecordType != "":
			return "", false
		case rec.Type == "" && rec.ID != "":
			typ, payload = "session_meta", line
		case rec.Type == "message" || strings.HasSuffix(rec.Type, "_call") ||
			strings.HasSuffix(rec.Type, "_call_output") || rec.Type == "reasoning":
			typ, payload = "response_item", line
		default:
			return "", false
		}
	}
	switch typ {
	case "session_meta":
		if p.meta != nil {
			return "", false // a resumed or forked session repeats it; the first wins
		}
		var m codexMeta
		if err := json.Unmarshal(payload, &m); err != nil {
			return fmt.Sprintf("session_meta: %v", err), false
		}
		p.meta, p.metaLine = &m, n
		p.metaTS = codexTime(m.Timestamp)
		if p.metaTS.IsZero() {
			p.metaTS = ts
		}
	case "turn_context":
		var c codexTurnContext
		if err := json.Unmarshal(payload, &c); err != nil {
			return fmt.Sprintf("turn_context: %v", err), false
		}
		if p.ctxCwd == "" {
			p.ctxCwd = c.Cwd
		}
		if c.Model != "" && (len(p.models) == 0 || p.models[len(p.models)-1] != c.Model) {
			p.models = append(p.models, c.Model)
		}
	case "event_msg":
		// Only the events read here must have the expected shape; the many
		// others (exec_command_end, turn_aborted, ...) are ignored unread.
		switch t := codexPayloadType(payload); t {
		case "user_message", "agent_message", "token_count":
			var e codexEvent
			if err := json.Unmarshal(payload, &e); err != nil {
				return fmt.Sprintf("event_msg %s: %v", t, err), false
			}
			p.event(e, ts)
		}
	case "response_item":
		t := codexPayloadType(payload)
		if t != "message" && !strings.HasSuffix(t, "_call") && !strings.HasSuffix(t, "_call_output") {
			return "", false // reasoning, and item types this parser does not know
		}
		var it codexItem
		if err := json.Unmarshal(payload, &it); err != nil {
			return fmt.Sprintf("response_item %s: %v", t, err), false
		}
		p.item(it, ts)
	}
	return "", false
}

func (p *codexParser) add(t ub.Turn, from int) {
	p.seen[from] = true
	p.turns = append(p.turns, cxTurn{t, from})
}

func (p *codexParser) event(e codexEvent, ts time.Time) {
	switch e.Type {
	case "user_message":
		p.seen[cxEventUser] = true
		if t, ok := codexDeveloperTurn(e.Message, len(e.Images)+len(e.LocalImages), ts); ok {
			p.add(t, cxEventUser)
		}
	case "agent_message":
		p.seen[cxEventAgent] = true
		if strings.TrimSpace(e.Message) != "" {
			p.add(ub.Turn{Role: ub.RoleAgent, Text: e.Message, TS: ts}, cxEventAgent)
		}
	case "token_count":
		var info struct {
			Total  json.RawMessage `json:"total_token_usage"`
			Window json.RawMessage `json:"model_context_window"`
		}
		if len(e.Info) == 0 || json.Unmarshal(e.Info, &info) != nil {
			return
		}
		if u := codexAny(info.Total); u != nil {
			p.usage = u
		}
		if w := codexAny(info.Window); w != nil {
			p.window = w
		}
	}
}

func (p *codexParser) item(it codexItem, ts time.Time) {
	switch {
	case it.Type == "message":
		p.message(it, ts)
	case strings.HasSuffix(it.Type, "_call_output"):
		p.add(codexToolResult(it, p.names[it.CallID], ts), cxOther)
	case strings.HasSuffix(it.Type, "_call"):
		name := codexToolName(it)
		if it.CallID != "" {
			p.names[it.CallID] = name
		}
		p.add(codexToolCall(it, name, ts), cxOther)
	}
	// reasoning and anything unknown: dropped.
}

// message handles a response_item message: injected instructions become
// system turns, the rest stand by in case the file has no events.
func (p *codexParser) message(it codexItem, ts time.Time) {
	parts := codexParts(it.Content)
	switch it.Role {
	case "assistant":
		var b strings.Builder
		for _, x := range parts {
			b.WriteString(x)
		}
		if strings.TrimSpace(b.String()) != "" {
			p.add(ub.Turn{Role: ub.RoleAgent, Text: b.String(), TS: ts}, cxItemAgent)
		}
	case "user":
		var typed []string
		images := 0
		for _, x := range parts {
			if kind := codexInjected(x); kind != "" {
				p.add(ub.Turn{Role: ub.RoleSystem, Text: x, TS: ts, Meta: map[string]any{"injected": kind}}, cxOther)
			} else if x == "[image]" {
				images++
			} else {
				typed = append(typed, x)
			}
		}
		p.seen[cxItemUser] = true
		if len(typed) > 0 || images > 0 {
			if t, ok := codexDeveloperTurn(strings.Join(typed, "\n"), images, ts); ok {
				p.add(t, cxItemUser)
			}
		}
	default: // developer, system: instructions from the harness
		text := strings.Join(parts, "\n")
		if strings.TrimSpace(text) != "" {
			p.add(ub.Turn{Role: ub.RoleSystem, Text: text, TS: ts, Meta: map[string]any{"injected": it.Role + "_instructions"}}, cxOther)
		}
	}
}

// session assembles what was read, dropping the duplicate copies of user and
// agent messages (see ParseCodex).
func (p *codexParser) session() (*ub.Session, *ParseError) {
	if p.meta == nil || p.meta.ID == "" {
		return nil, &ParseError{Path: p.path, Line: p.metaLine, Reason: "no session id (missing session_meta)"}
	}
	s := &ub.Session{
		ID:         p.meta.ID,
		Repo:       p.meta.Cwd,
		StartedAt:  p.metaTS,
		Format:     "codex",
		SourceFile: p.path,
		Line:       p.metaLine,
		Meta:       map[string]any{},
	}
	if s.Repo == "" {
		s.Repo = p.ctxCwd
	}
	for _, t := range p.turns {
		if (t.from == cxItemUser && p.seen[cxEventUser]) || (t.from == cxItemAgent && p.seen[cxEventAgent]) {
			continue
		}
		s.Turns = append(s.Turns, t.Turn)
	}
	if s.StartedAt.IsZero() {
		for _, t := range s.Turns {
			if !t.TS.IsZero() {
				s.StartedAt = t.TS
				break
			}
		}
	}
	for k, v := range map[string]string{
		"cli_version":    p.meta.CLIVersion,
		"originator":     p.meta.Originator,
		"model_provider": p.meta.ModelProvider,
	} {
		if v != "" {
			s.Meta[k] = v
		}
	}
	if p.meta.Source != nil {
		s.Meta["source"] = p.meta.Source
	}
	if p.meta.Git != nil {
		s.Meta["git"] = p.meta.Git
	}
	if len(p.models) > 0 {
		s.Meta["model"] = p.models[0]
	}
	if len(p.models) > 1 {
		s.Meta["models"] = p.models
	}
	if p.usage != nil {
		s.Meta["token_usage"] = p.usage
	}
	if p.window != nil {
		s.Meta["model_context_window"] = p.window
	}
	if len(s.Meta) == 0 {
		s.Meta = nil
	}
	return s, nil
}

// codexDeveloperTurn makes the developer turn for a typed message (see
// ParseCodex for the wrappers removed). ok is false when nothing is left.
func codexDeveloperTurn(msg string, images int, ts time.Time) (ub.Turn, bool) {
	t := ub.Turn{Role: ub.RoleDeveloper, TS: ts}
	meta := map[string]any{}
	s := msg
	var stripped []string
	for {
		trimmed := strings.TrimLeft(s, " \t\r\n")
		tag := ""
		for _, name := range []string{"environment_context", "user_instructions"} {
			if strings.HasPrefix(trimmed, "<"+name+">") {
				tag = name
			}
		}
		end := strings.Index(trimmed, "</"+tag+">")
		if tag == "" || end < 0 {
			break
		}
		s = trimmed[end+len(tag)+3:]
		stripped = append(stripped, tag)
	}
	if len(stripped) > 0 {
		meta["stripped"] = stripped
	}
	const ideHead, ideRequest = "# Context from my IDE setup:", "## My request for Codex:"
	if trimmed := strings.TrimLeft(s, " \t\r\n"); strings.HasPrefix(trimmed, ideHead) {
		if i := strings.Index(trimmed, ideRequest); i >= 0 {
			s = trimmed[i+len(ideRequest):]
			meta["ide_context"] = true
		}
	}
	if args, ok := codexCustomPrompt(s); ok {
		meta["custom_prompt"] = map[string]any{"template_bytes": len(s)}
		t.IsCommand = true
		s = args
		if s == "" {
			s = "[custom prompt]"
		}
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "/") {
		t.IsCommand = true
	}
	if images > 0 {
		meta["images"] = images
		marks := strings.TrimSuffix(strings.Repeat("[image]\n", images), "\n")
		if s != "" {
			s += "\n"
		}
		s += marks
	}
	if s == "" {
		return ub.Turn{}, false
	}
	t.Text = s
	if len(meta) > 0 {
		t.Meta = meta
	}
	return t, true
}

// codexCustomPrompt recognises a prompt file expanded in place of a slash
// command, in the shape spec-kit's prompts have: "## User Input", a fenced
// block holding the command's arguments, then "You **MUST** consider the user
// input". It returns the arguments.
func codexCustomPrompt(s string) (args string, ok bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "## User Input") {
		return "", false
	}
	lines := strings.Split(t, "\n")
	i := 1
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i >= len(lines) {
		return "", false
	}
	open := strings.TrimSpace(lines[i])
	fence := open[:len(open)-len(strings.TrimLeft(open, "`"))]
	if len(fence) < 3 {
		return "", false
	}
	j := i + 1
	for j < len(lines) && strings.TrimSpace(lines[j]) != fence {
		j++
	}
	if j >= len(lines) {
		return "", false
	}
	k := j + 1
	for k < len(lines) && strings.TrimSpace(lines[k]) == "" {
		k++
	}
	if k >= len(lines) || !strings.HasPrefix(strings.TrimSpace(lines[k]), "You **MUST** consider the user input") {
		return "", false
	}
	return strings.TrimSpace(strings.Join(lines[i+1:j], "\n")), true
}

// codexInjected names the kind of harness-injected text in a user message
// part, or "" for text the developer typed.
func codexInjected(x string) string {
	t := strings.TrimLeft(x, " \t\r\n")
	switch {
	case strings.HasPrefix(t, "<environment_context>"):
		return "environment_context"
	case strings.HasPrefix(t, "<user_instructions>"):
		return "user_instructions"
	case strings.HasPrefix(t, "# AGENTS.md instructions"), strings.HasPrefix(t, "<INSTRUCTIONS>"):
		return "agents_md"
	}
	return ""
}

// codexParts returns the texts of a message's content: a string, or a list
// of input_text/output_text/input_image parts (an image is "[image]").
func codexParts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return nil
	}
	var out []string
	for _, x := range parts {
		switch {
		case strings.Contains(x.Type, "image"):
			out = append(out, "[image]")
		case x.Text != "":
			out = append(out, x.Text)
		}
	}
	return out
}

// codexToolName is a call's tool name; built-in calls (local_shell_call,
// web_search_call) have none and are named by their type.
func codexToolName(it codexItem) string {
	if it.Name != "" {
		return it.Name
	}
	return strings.TrimSuffix(it.Type, "_call")
}

// codexToolCall makes the tool turn of a *_call item. Text is the tool name
// and its raw arguments, clipped.
func codexToolCall(it codexItem, name string, ts time.Time) ub.Turn {
	raw := it.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = it.Input
	}
	if len(raw) == 0 || string(raw) == "null" {
		raw = it.Action
	}
	var args any
	argText := ""
	var str string
	if json.Unmarshal(raw, &str) == nil {
		// Arguments are usually a JSON document inside a string.
		argText = str
		args = str
		if v := codexAny(json.RawMessage(str)); v != nil {
			args = v
		}
	} else if v := codexAny(raw); v != nil {
		args = v
		argText = string(raw)
	}
	call := map[string]any{"name": name}
	if it.CallID != "" {
		call["call_id"] = it.CallID
	}
	if args != nil {
		call["arguments"] = args
	}
	meta := map[string]any{"tool_call": call}
	text := strings.TrimSpace(name + " " + argText)
	if clipped, cut := codexClip(text, codexToolTextMax); cut {
		meta["text_bytes"] = len(text)
		text = clipped
	}
	return ub.Turn{Role: ub.RoleTool, Text: text, TS: ts, Meta: meta}
}

// codexToolResult makes the tool turn of a *_call_output item. The shell
// tool's output is a JSON string {"output","metadata":{"exit_code",...}};
// the text is then the inner output and the exit code goes to Meta.
func codexToolResult(it codexItem, name string, ts time.Time) ub.Turn {
	res := map[string]any{}
	if it.CallID != "" {
		res["call_id"] = it.CallID
	}
	if name != "" {
		res["name"] = name
	}
	text := ""
	var str string
	var obj struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *json.Number `json:"exit_code"`
		} `json:"metadata"`
		Content json.RawMessage `json:"content"`
		Success *bool           `json:"success"`
	}
	switch {
	case len(it.Output) == 0 || string(it.Output) == "null":
	case json.Unmarshal(it.Output, &str) == nil:
		text = str
		if strings.HasPrefix(strings.TrimSpace(str), "{") && json.Unmarshal([]byte(str), &obj) == nil && obj.Output != nil {
			text = *obj.Output
			if obj.Metadata.ExitCode != nil {
				res["exit_code"] = *obj.Metadata.ExitCode
			}
		}
	case json.Unmarshal(it.Output, &obj) == nil && len(obj.Content) > 0:
		text = strings.Join(codexParts(obj.Content), "\n")
		if obj.Success != nil {
			res["success"] = *obj.Success
		}
	default:
		if parts := codexParts(it.Output); parts != nil {
			text = strings.Join(parts, "\n")
		} else {
			text = string(it.Output)
		}
	}
	meta := map[string]any{"tool_result": res}
	if clipped, cut := codexClip(text, codexToolTextMax); cut {
		meta["text_bytes"] = len(text)
		text = clipped
	}
	return ub.Turn{Role: ub.RoleTool, Text: text, TS: ts, Meta: meta}
}

// codexPayloadType is a payload's "type", or "" when it has none.
func codexPayloadType(payload json.RawMessage) string {
	var v struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(payload, &v) != nil {
		return ""
	}
	t, _ := v.Type.(string)
	return t
}

// codexAny decodes a JSON value keeping numbers exact; nil for invalid JSON
// or null.
func codexAny(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil
	}
	return v
}

// codexTime parses an RFC 3339 timestamp; the zero time when it is absent or
// malformed (a bad timestamp does not make a turn unusable).
func codexTime(v string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
