package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ub-bench/ub/queries"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Episode formats (SPEC 6.1): a tau2-bench result file (one object with
// info, tasks, simulations) and a tau-bench v1 trajectory array.
const (
	FormatTau2 = "tau2"
	FormatTau1 = "tau1"
)

// EpisodeFile is what one result file holds, ready to be written: the run
// (the file's info), the tasks it embeds, and its episodes. Rows keep nil
// for JSON null or a missing field.
type EpisodeFile struct {
	Run      EpRun
	Tasks    []*EpTask
	Episodes []*Episode
}

// EpRun is one result file's configuration (ep_runs): the row as the
// table holds it, one type for both.
type EpRun = queries.NewEpRun

// EpTask is one task definition (ep_tasks) with its gold actions and env
// assertions.
type EpTask struct {
	Key, Domain, TaskID, Format                                      string
	ReasonForCall, KnownInfo, UnknownInfo, TaskInstructions, Persona *string
	Instruction, UserID, Purpose, Ticket                             *string
	RewardBasis, InitialState, CommunicateInfo, NLAssertions, Raw    json.RawMessage
	SourceFile                                                       string
	Actions                                                          []EpAction
	Assertions                                                       []EpAssertion
}

// EpAction is a gold action; Requestor is "assistant" or "user".
type EpAction struct {
	ActionID               *string
	Requestor, Name        string
	Arguments, CompareArgs json.RawMessage
	Info                   *string
}

// EpAssertion is an env assertion of a task.
type EpAssertion struct {
	EnvType, FuncName string
	Arguments         json.RawMessage
	AssertValue       *bool
	Message           *string
}

// Episode is one simulation (ep_episodes) with its messages, tool calls and
// reward checks. TaskRef is the embedded task it ran (nil: not found).
type Episode struct {
	SimulationID, RunID, SourceFile string
	SourceIndex                     int
	ContentHash, Domain, TaskID     string
	TaskKey                         *string
	Trial                           *int
	Seed                            *int64
	Reward                          *float64
	RewardBasis, RewardBreakdown    json.RawMessage
	DBMatch                         *bool
	TerminationReason               *string
	UserCost, AgentCost             *float64
	UserTokensIn, UserTokensOut     *int64
	Duration                        *float64
	StartedAt                       *string
	Extra                           json.RawMessage
	Messages                        []EpMessage
	Calls                           []EpCall
	Checks                          []EpCheck
	Line                            int     // where the simulation starts in its file
	TaskRef                         *EpTask // the task of TaskKey, as parsed (nil: none)
}

// EpMessage is one message of an episode.
type EpMessage struct {
	Idx, TurnIdx                   int
	Role                           string
	Content, ToolCallID, Requestor *string
	ToolError                      *bool
	NToolCalls                     int
	PromptTokens, CompletionTokens *int64
	Cost                           *float64
	TS                             *string
}

// EpCall is one tool call made in a message.
type EpCall struct {
	MsgIdx, CallIdx int
	CallID          *string
	Requestor, Name string
	Arguments       json.RawMessage
}

// EpCheck is one item of the reward evaluation.
type EpCheck struct {
	Kind      string
	Idx       int
	Name      *string
	Requestor *string
	Met       *bool
	Reward    *float64
	Detail    json.RawMessage
}

// DetectEpisodes names the episode format of a file from its first bytes:
// "tau2" for a JSON object whose top-level keys include "info" and either
// "tasks" or "simulations" (or, when the info object is longer than the head,
// whose head names "user_info" and "agent_info"); "tau1" for a JSON array
// whose first element has "task_id" and "traj" or "info"; "" otherwise.
func DetectEpisodes(head []byte) string {
	trimmed := bytes.TrimLeft(head, "\ufeff \t\r\n")
	switch {
	case bytes.HasPrefix(trimmed, []byte("{")):
		keys := jsonKeys(trimmed)
		if keys["info"] && (keys["tasks"] || keys["simulations"]) {
			return FormatTau2
		}
		if keys["info"] && bytes.Contains(head, []byte(`"user_info"`)) && bytes.Contains(head, []byte(`"agent_info"`)) {
			return FormatTau2
		}
	case bytes.HasPrefix(trimmed, []byte("[")):
		rest := bytes.TrimLeft(trimmed[1:], " \t\r\n")
		if !bytes.HasPrefix(rest, []byte("{")) {
			return ""
		}
		keys := jsonKeys(rest)
		if keys["task_id"] && (keys["traj"] || keys["info"]) {
			return FormatTau1
		}
	}
	return ""
}

// lineAt is the 1-based line of byte offset off in data.
func lineAt(data []byte, off int64) int {
	off = max(0, min(off, int64(len(data))))
	// Skip the separator and whitespace before the value the offset precedes.
	for off < int64(len(data)) && (data[off] == ',' || data[off] == ' ' || data[off] == '\n' || data[off] == '\r' || data[off] == '\t') {
		off++
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// jsonStream decodes an episode or task file value by value, so that
// memory holds one simulation (or task) at a time, not the file. It counts
// the newlines read, to give each value and each syntax error its line.
// A file that is not valid JSON is one error (syntaxError): a parser keeps
// its other errors and its values until the end of the file is reached.
type jsonStream struct {
	path string
	dec  *json.Decoder
	lr   *lineReader
}

// lineReader counts the newlines read through it and keeps what was read
// since the last mark, so that a value decoded straight into a struct can
// still be hashed as the bytes it was written with.
type lineReader struct {
	r    io.Reader
	nl   int
	keep []byte // the input from offset kept on
	kept int64
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.nl += bytes.Count(p[:n], []byte("\n"))
	l.keep = append(l.keep, p[:n]...)
	return n, err
}

// mark forgets the input before offset off.
func (l *lineReader) mark(off int64) {
	n := copy(l.keep, l.keep[off-l.kept:])
	l.keep, l.kept = l.keep[:n], off
}

// newlineCounter counts the newlines written to it.
type newlineCounter int

func (c *newlineCounter) Write(p []byte) (int, error) {
	*c += newlineCounter(bytes.Count(p, []byte("\n")))
	return len(p), nil
}

func newJSONStream(path string, r io.Reader) *jsonStream {
	lr := &lineReader{r: r}
	return &jsonStream{path: path, dec: json.NewDecoder(lr), lr: lr}
}

// linesBefore is the number of newlines before the decoder's position,
// less those of the value just decoded (raw).
func (s *jsonStream) linesBefore(raw []byte) int {
	var buffered newlineCounter
	io.Copy(&buffered, s.dec.Buffered()) // a bytes.Reader: WriteTo, no copy
	return s.lr.nl - int(buffered) - bytes.Count(raw, []byte("\n"))
}

// value decodes the next value whole and returns it with the line it
// starts on.
func (s *jsonStream) value() (json.RawMessage, int, error) {
	s.lr.mark(s.dec.InputOffset())
	var raw json.RawMessage
	if err := s.dec.Decode(&raw); err != nil {
		return nil, 0, err
	}
	return raw, 1 + s.linesBefore(raw), nil
}

// decode decodes the next value straight into v (a struct) and returns the
// bytes it was written with (what value would return) and its line. err is
// the decoding error: a syntax error (raw is nil) or, as json.Unmarshal
// gives it, a mistyped field after the whole value was decoded.
func (s *jsonStream) decode(v any) (raw []byte, line int, err error) {
	start := s.dec.InputOffset()
	s.lr.mark(start)
	err = s.dec.Decode(v)
	var se *json.SyntaxError
	if err != nil && (errors.As(err, &se) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
		return nil, 0, err
	}
	end := s.dec.InputOffset()
	raw = bytes.TrimLeft(s.lr.keep[:end-start], ", \t\r\n")
	return raw, 1 + s.linesBefore(raw), err
}

// line is the line of the decoder's position (after the last token).
func (s *jsonStream) line() int { return 1 + s.linesBefore(nil) }

// syntaxError makes the file's one error from a decoding error. The
// decoder stops where the value it could not read starts; read as a whole,
// that value gives json.Unmarshal's reason and the line of the bad byte,
// as checking the whole file would. An error between values ("expected
// comma after array element") is placed where the decoder stopped.
func (s *jsonStream) syntaxError(err error) *ParseError { return s.syntaxErrorAt(err, false) }

// syntaxErrorAt is syntaxError; top says the top-level value has ended.
func (s *jsonStream) syntaxErrorAt(err error, top bool) *ParseError {
	rest, _ := io.ReadAll(s.dec.Buffered())
	base := s.lr.nl - bytes.Count(rest, []byte("\n"))
	reason := strings.TrimPrefix(err.Error(), "json: ")
	eof := errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
	if eof {
		reason = "unexpected end of JSON input"
	}
	if pe := syntaxCheck(s.path, rest); !top && pe != nil && (eof || pe.Reason == "invalid JSON: "+reason) {
		pe.Line += base
		return pe
	}
	// The decoder's words for an error between values, in the scanner's.
	if c := bytes.TrimLeft(rest, " \t\r\n"); len(c) > 0 {
		q := strconv.QuoteRune(rune(c[0]))
		q = "'" + q[1:len(q)-1] + "'"
		switch {
		case strings.HasPrefix(reason, "expected comma after "):
			reason = "invalid character " + q + " after " + strings.TrimPrefix(reason, "expected comma after ")
		case reason == "expected colon after object key":
			reason = "invalid character " + q + " after object key"
		case reason == "invalid character "+q:
			reason += " looking for beginning of object key string"
		case top && strings.HasSuffix(reason, " looking for beginning of value"):
			reason = strings.TrimSuffix(reason, " looking for beginning of value") + " after top-level value"
		}
	}
	return &ParseError{Path: s.path, Line: base + lineAt(rest, 0), Reason: "invalid JSON: " + reason}
}

// drain reads the rest of the input, at nesting depth depth, and returns
// the syntax error there is (nil: the file is valid JSON to its end).
func (s *jsonStream) drain(depth int) *ParseError {
	for {
		t, err := s.dec.Token()
		if err == io.EOF && depth == 0 {
			return nil
		}
		if err != nil {
			return s.syntaxErrorAt(err, depth == 0)
		}
		if depth == 0 {
			return &ParseError{Path: s.path, Line: s.line(), Reason: fmt.Sprintf("invalid JSON: invalid character %q after top-level value", tokenStart(t))}
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// jsonArray reads a file that is one JSON array, calling fn to decode
// each element (with s.value or s.decode) and returning the syntax error
// it met. A file that is not valid JSON, or whose value is no array
// (notArray), is one error on sink, and ok is false; fn may have been
// called before the error was found.
func jsonArray(path string, r io.Reader, sink EpisodeSink, notArray string, fn func(i int, s *jsonStream) error) (ok bool) {
	s := newJSONStream(path, r)
	t, err := s.dec.Token()
	if err != nil {
		sink.Error(s.syntaxError(err))
		return false
	}
	if t != json.Delim('[') {
		pe := &ParseError{Path: path, Line: 1, Reason: notArray}
		if se := s.drain(depthOf(t)); se != nil {
			pe = se
		}
		sink.Error(pe)
		return false
	}
	for i := 0; s.dec.More(); i++ {
		if err := fn(i, s); err != nil {
			sink.Error(s.syntaxError(err))
			return false
		}
	}
	if pe := s.finish(); pe != nil {
		sink.Error(pe)
		return false
	}
	return true
}

// finish reads the end of the top-level array or object and checks that
// nothing but white space follows it.
func (s *jsonStream) finish() *ParseError {
	if _, err := s.dec.Token(); err != nil {
		return s.syntaxError(err)
	}
	return s.drain(0)
}

// tokenStart is the first character of a token as JSON writes it.
func tokenStart(t json.Token) rune {
	switch v := t.(type) {
	case json.Delim:
		return rune(v)
	case string:
		return '"'
	case bool:
		if v {
			return 't'
		}
		return 'f'
	case nil:
		return 'n'
	}
	b, _ := json.Marshal(t)
	if len(b) == 0 {
		return '?'
	}
	return rune(b[0])
}

// depthOf is the nesting a first token opens.
func depthOf(t json.Token) int {
	if t == json.Delim('{') || t == json.Delim('[') {
		return 1
	}
	return 0
}

// syntaxCheck returns one ParseError for data that is not valid JSON, with
// json.Unmarshal's reason and the line of the offending byte; nil for valid
// JSON.
func syntaxCheck(path string, data []byte) *ParseError {
	if json.Valid(data) {
		return nil
	}
	err := json.Unmarshal(data, new(struct{}))
	if se, ok := err.(*json.SyntaxError); ok {
		return &ParseError{Path: path, Line: lineAt(data, se.Offset-1), Reason: "invalid JSON: " + se.Error()}
	}
	return &ParseError{Path: path, Line: 1, Reason: "invalid JSON"}
}

func sha(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// canonical re-encodes JSON with sorted keys and no spacing, so the same
// content hashes the same whatever the file's layout.
func canonical(raw json.RawMessage) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	b, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return b
}

// TaskKey is sha256 over domain, task id and the canonical JSON of the task.
func TaskKey(domain, taskID string, raw json.RawMessage) string {
	return sha([]byte(domain), []byte(taskID), canonical(raw))
}

// taskKeyFunc computes a task's key (TaskKey).
type taskKeyFunc func(domain, taskID string, raw json.RawMessage) string

// sinkTaskKey returns the sink's taskKey when it has one (writer, which
// remembers the keys of a run: every result file of a domain embeds the
// same tasks, and a key re-encodes its whole task), else TaskKey.
func sinkTaskKey(sink EpisodeSink) taskKeyFunc {
	if k, ok := sink.(interface {
		taskKey(domain, taskID string, raw json.RawMessage) string
	}); ok {
		return k.taskKey
	}
	return TaskKey
}

// idString reads a task id written as a string or a number.
func idString(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, s != ""
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

func nullRaw(raw json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" {
		return nil
	}
	return t
}

// Identity names a simulator or agent readably: implementation:model@params,
// params being t<temperature> and other scalar settings k=v in key order;
// endpoints and credentials (base_url, api_key, anything naming a key,
// token or secret) are never part of a name. user_simulator:gpt-4.1@t0.
func IdentityName(impl, model string, args json.RawMessage) string {
	name := impl
	if model != "" {
		if name != "" {
			name += ":"
		}
		name += model
	}
	if name == "" {
		name = "unknown"
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return name
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var params []string
	if t, ok := m["temperature"]; ok {
		var f float64
		if json.Unmarshal(t, &f) == nil {
			params = append(params, "t"+strconv.FormatFloat(f, 'g', -1, 64))
		}
	}
	for _, k := range keys {
		lk := strings.ToLower(k)
		if k == "temperature" || strings.Contains(lk, "key") || strings.Contains(lk, "token") ||
			strings.Contains(lk, "secret") || strings.Contains(lk, "url") || strings.Contains(lk, "base") ||
			strings.Contains(lk, "header") {
			continue
		}
		var v any
		if json.Unmarshal(m[k], &v) != nil {
			continue
		}
		switch x := v.(type) {
		case string:
			params = append(params, k+"="+x)
		case float64:
			params = append(params, k+"="+strconv.FormatFloat(x, 'g', -1, 64))
		case bool:
			params = append(params, k+"="+strconv.FormatBool(x))
		}
	}
	if len(params) > 0 {
		name += "@" + strings.Join(params, ",")
	}
	return name
}

// fileStem is the base name without .json.
func fileStem(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

// nameDomain reads the domain from a corpus-style file name
// <domain>__agent-<agent>__user-<user>...; "" when it does not follow it.
func nameDomain(path string) string {
	parts := strings.Split(fileStem(path), "__")
	if len(parts) >= 2 && parts[0] != "" && !strings.ContainsAny(parts[0], " .") {
		return parts[0]
	}
	return ""
}

// namePart returns the part of a corpus-style file name after prefix
// ("agent-", "user-"), or "".
func namePart(path, prefix string) string {
	for _, p := range strings.Split(fileStem(path), "__") {
		if strings.HasPrefix(p, prefix) && len(p) > len(prefix) {
			return strings.TrimPrefix(p, prefix)
		}
	}
	return ""
}

func strp(s string) *string { return &s }

// EpisodeSink receives parsed episode files and task files.
type EpisodeSink interface {
	EpisodeFile(f *EpisodeFile) error
	Error(e *ParseError)
}
