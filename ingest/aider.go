package ingest

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/ingest/lines"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// aiderHeader begins every session of an aider chat history.
const aiderHeader = "# aider chat started at "

// aiderTimeLayout is the header's timestamp: the developer's local time, no zone.
const aiderTimeLayout = "2006-01-02 15:04:05"

// Session.Meta["style"] values: how developer lines were written.
const (
	aiderContiguous     = "contiguous"      // aider writes "#### line  " runs
	aiderBlankSeparated = "blank_separated" // older aider: one "#### " paragraph per line
)

// ParseAider parses an aider chat history (.aider.chat.history.md), the
// markdown log aider appends to on every run. It is a ParseFunc.
//
// aider writes no structure beyond line prefixes, so these rules decide what
// each line is. TestAiderCorpusMatchesManifest checks them against the
// counts in ../shared/corpus/aider/manifest.jsonl.
//
//  1. Sessions. A line starting with "# aider chat started at " begins a
//     session. Its timestamp "YYYY-MM-DD HH:MM:SS" is the developer's local
//     time without a zone: StartedAt holds those clock figures as UTC, with
//     no conversion. Line is the header's 1-based line number; ID is
//     StableID("aider", base name of the file, timestamp text, n), n the
//     1-based ordinal of the header in the file (every header counts, kept or
//     not); Format is "aider"; SourceFile is src.Path. Developer and Repo stay
//     empty for the ingest run to resolve. Meta holds "style" (rule 3) and,
//     when the startup banner shows them, "aider_version" and "model".
//  2. Line kinds. With a trailing "\r" removed, a line is blank (spaces and
//     tabs only), console output ("> ..." or a bare ">"), a developer line
//     (rule 3) or agent text. ">>>>>>> REPLACE", "#####" headings and
//     "####x" are agent text.
//  3. Developer lines and style. A developer line is "####" alone or followed
//     by a space. Current aider ends each developer line with two spaces, so
//     in a contiguous session a "####" line without them is a markdown
//     heading of the agent's reply, i.e. agent text. A session is contiguous
//     if one of its developer lines ends with two spaces, or if an earlier
//     session of the same file was contiguous; otherwise it is
//     blank_separated (aider up to mid-2024, or no developer line at all),
//     and every "####" line is a developer line. The carry-over keeps a later
//     session of agent headings alone (aider --lint, --test, a restored chat)
//     from becoming developer messages, at the cost of misreading a file
//     whose author went back to an old aider. The style is decided per
//     session, not per file, because files span aider upgrades.
//  4. Developer messages. Consecutive developer lines are one message. In a
//     blank_separated session, where old aider wrote each line of a message
//     as its own paragraph, paragraphs separated only by blank lines are one
//     message too, except that a message whose first line is a command
//     (rule 5) ends with that paragraph: aider reads a command as one line,
//     and "/clear" must not swallow the request typed after it. Agent
//     headings in blank_separated sessions cannot be told from developer
//     lines and are read as developer messages. Each line loses "####", the
//     space after it and two trailing spaces; "####" followed only by spaces
//     is an empty line. Leading and trailing empty lines are trimmed.
//  5. Commands. A message starting with "/" or "!" is what aider ran as an
//     in-chat command or shell escape (aider takes any such input as one,
//     even a pasted path): a developer turn with IsCommand set.
//  6. Command echoes. aider logs the argument of "/ask X", "/code X",
//     "/architect X" and the like again as the message it sends, and for
//     "/help X" it logs the prompt it built ("# Question: X" and docs). A
//     message right after such a command (only blank lines between) that
//     equals its argument, or after "/help X" starts with "# Question: X", is
//     a developer turn with IsCommand set and Meta {"echo_of": "/ask"} (the
//     command). The developer typed it once; as a moment, its context would
//     hold the command and so the answer.
//  7. Empty submissions. "<blank>", aider's record of an empty input, and a
//     message of empty lines only (logged for whitespace input) are a
//     developer turn with text "<blank>", IsCommand set and Meta
//     {"blank": true}: a real action (often "go on"), but no words to
//     simulate.
//  8. Confirmations. A one-line message holding aider's question and the
//     answer given, "... (Y)es/(N)o... [Yes]: all", is a tool turn with Meta
//     {"kind": "confirm"}, not a developer message.
//  9. Console output. Console lines, runs separated only by blank lines
//     included, are one tool turn with Meta {"kind": "console"}; each line
//     loses "> " (or ">") and trailing spaces.
//  10. Agent text. The lines between the turns above are one agent turn,
//     verbatim except for leading and trailing blank lines.
//  11. Kept sessions. A session is emitted if it has a developer turn
//     (commands, echoes and empty submissions count, as in the manifest's
//     sessions_with_user_msgs); otherwise sink.Skip("no developer message").
//  12. Bad input. A line with invalid UTF-8 or a NUL byte, or a header whose
//     timestamp does not parse, is reported as a ParseError at that line and
//     its session is dropped whole; parsing resumes at the next header.
//     Non-blank text before the first header is reported once and ignored.
//
// ParseAider reads line by line, lines of any length, and holds one session
// at a time. It returns an error only when reading fails or sink.Session
// returns one.
func ParseAider(src Source, sink Sink) error {
	p := &aiderParser{
		path: src.Path,
		base: filepath.Base(src.Path),
		sink: sink,
		r:    lines.NewReader(src.R),
	}
	return p.run()
}

// aiderState is where the parser is between headers.
type aiderState int

const (
	aiderPreamble aiderState = iota // before the first header
	aiderInSession
	aiderFailed // the current session was reported bad; skip to the next header
)

type aiderParser struct {
	path, base string
	sink       Sink
	r          *lines.Reader
	lineNo     int

	state           aiderState
	ordinal         int  // headers seen so far
	contiguousFile  bool // an earlier session was contiguous (rule 3)
	preambleWarned  bool
	hdrLine         int
	hdrText         string
	startedAt       time.Time
	raw             []byte // the current session's lines after its header, '\n'-terminated
	twoSpaceDevLine bool   // the current session has a "####" line ending in two spaces

	// classification of the current session
	turns []ub.Turn
	text  []byte // the current developer message or console run
}

func (p *aiderParser) run() error {
	for {
		line, skipped, ok, err := p.readLine()
		if ok {
			p.lineNo++
			if err := p.handle(line, skipped); err != nil {
				return err
			}
		}
		if err != nil {
			return fmt.Errorf("reading %s at line %d: %w", p.path, p.lineNo+1, err)
		}
		if !ok {
			return p.finish()
		}
	}
}

// readLine returns the next line without its "\n" (and "\r"), valid until
// the next call; ok is false when there was no line left. While nothing of
// the line can be kept (a failed session, the preamble), only its first bytes
// are returned and skipped is true, so a binary file without newlines costs
// no memory.
func (p *aiderParser) readLine() (line []byte, skipped, ok bool, err error) {
	if p.state != aiderInSession {
		// keep enough to recognise a header
		line, skipped, _, ok, err = p.r.NextPrefix(len(aiderHeader))
		return line, skipped, ok, err
	}
	line, _, ok, err = p.r.Next()
	return line, false, ok, err
}

func (p *aiderParser) handle(line []byte, truncated bool) error {
	if bytes.HasPrefix(line, []byte(aiderHeader)) {
		if err := p.finish(); err != nil {
			return err
		}
		p.header(line, truncated)
		return nil
	}
	switch p.state {
	case aiderFailed:
		return nil
	case aiderPreamble:
		if !p.preambleWarned && !aiderBlank(line) {
			p.preambleWarned = true
			p.sink.Error(&ParseError{Path: p.path, Line: p.lineNo, Reason: "text before the first \"# aider chat started at\" header"})
		}
		return nil
	}
	if reason := aiderBadLine(line); reason != "" {
		p.fail(reason)
		return nil
	}
	if aiderIsDevLine(line) && bytes.HasSuffix(line, []byte("  ")) {
		p.twoSpaceDevLine = true
	}
	p.raw = append(p.raw, line...)
	p.raw = append(p.raw, '\n')
	return nil
}

// aiderBadLine says why a line cannot be text, or "".
func aiderBadLine(line []byte) string {
	whole := line
	// Fast path: eight bytes at a time while they are ASCII and not NUL.
	const hi, lo = 0x8080808080808080, 0x0101010101010101
	for len(line) >= 8 {
		x := binary.LittleEndian.Uint64(line)
		if x&hi != 0 || (x-lo)&^x&hi != 0 {
			break
		}
		line = line[8:]
	}
	if bytes.IndexByte(line, 0) >= 0 {
		return "NUL byte (binary content)"
	}
	if !utf8.Valid(line) {
		return invalidUTF8(whole)
	}
	return ""
}

func (p *aiderParser) header(line []byte, truncated bool) {
	p.ordinal++
	p.hdrLine = p.lineNo
	p.raw = p.raw[:0]
	p.twoSpaceDevLine = false
	p.state = aiderInSession
	if reason := aiderBadLine(line); reason != "" || truncated {
		if truncated {
			reason = "session header too long"
		}
		p.fail(reason)
		return
	}
	p.hdrText = strings.TrimSpace(string(line[len(aiderHeader):]))
	t, err := time.Parse(aiderTimeLayout, p.hdrText)
	if err != nil {
		p.fail(fmt.Sprintf("session header: bad time %q, want YYYY-MM-DD HH:MM:SS", aiderClip(p.hdrText, 40)))
		return
	}
	p.startedAt = t // no zone in the text: time.Parse gives UTC
}

// clip shortens s to at most n bytes for an error message.
func aiderClip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}

// fail reports the current line and drops the current session.
func (p *aiderParser) fail(reason string) {
	p.sink.Error(&ParseError{Path: p.path, Line: p.lineNo, Reason: reason})
	p.state = aiderFailed
	p.raw = p.raw[:0]
}

// finish classifies and emits the session being read, if any.
func (p *aiderParser) finish() error {
	if p.state != aiderInSession {
		return nil
	}
	p.state = aiderPreamble // until the next header
	contiguous := p.twoSpaceDevLine || p.contiguousFile
	if p.twoSpaceDevLine {
		p.contiguousFile = true
	}
	return emit(p.sink, p.classify(contiguous))
}

type aiderKind int

const (
	aiderNone aiderKind = iota
	aiderBlankLine
	aiderDev
	aiderTool
	aiderAgentText
)

func aiderBlank(l []byte) bool {
	for _, c := range l {
		if c != ' ' && c != '\t' {
			return false
		}
	}
	return true
}

// aiderIsDevLine: "####" alone or followed by a space (not "#####").
func aiderIsDevLine(l []byte) bool {
	return bytes.HasPrefix(l, []byte("####")) && (len(l) == 4 || l[4] == ' ')
}

func aiderLineKind(l []byte, contiguous bool) aiderKind {
	switch {
	case aiderBlank(l):
		return aiderBlankLine
	case l[0] == '>' && (len(l) == 1 || l[1] == ' '):
		return aiderTool
	case aiderIsDevLine(l) && (!contiguous || bytes.HasSuffix(l, []byte("  "))):
		return aiderDev
	}
	return aiderAgentText
}

// classify turns the buffered session lines into a Session (rules 2-10).
func (p *aiderParser) classify(contiguous bool) *ub.Session {
	style := aiderBlankSeparated
	if contiguous {
		style = aiderContiguous
	}
	s := &ub.Session{
		ID:         StableID("aider", p.base, p.hdrText, strconv.Itoa(p.ordinal)),
		StartedAt:  p.startedAt,
		Format:     "aider",
		SourceFile: p.path,
		Line:       p.hdrLine,
		Meta:       map[string]any{"style": style},
	}
	p.turns = p.turns[:0]
	p.text = p.text[:0]
	var haveVersion, haveModel bool

	cur := aiderNone
	agentStart := 0   // offset in raw of the current agent segment
	agentEnd := 0     // end of its last non-blank line
	devLines := 0     // lines in the current developer message
	devText := 0      // of them, lines with text
	devCmd := false   // its first line with text is a command
	gap := false      // a blank line since the last line of the segment
	flush := func() { // closes the current segment
		switch cur {
		case aiderDev:
			p.devTurn(string(aiderTrimBlankLines(p.text)))
		case aiderTool:
			if t := aiderTrimBlankLines(p.text); len(t) > 0 {
				p.turns = append(p.turns, ub.Turn{Role: ub.RoleTool, Text: string(t), Meta: map[string]any{"kind": "console"}})
			}
		case aiderAgentText:
			p.turns = append(p.turns, ub.Turn{Role: ub.RoleAgent, Text: string(p.raw[agentStart:agentEnd])})
		}
		cur = aiderNone
		p.text = p.text[:0]
		devLines, devText, devCmd = 0, 0, false
	}

	raw := p.raw
	for off := 0; off < len(raw); {
		end := off + bytes.IndexByte(raw[off:], '\n')
		l := raw[off:end]
		off = end + 1
		k := aiderLineKind(l, contiguous)
		switch k {
		case aiderBlankLine:
			// A blank line ends a contiguous message; blank_separated
			// paragraphs, console runs and agent text go on across it.
			if cur == aiderDev && contiguous {
				flush()
			}
			gap = true
			continue
		case aiderDev:
			// rule 4: a blank_separated command is one paragraph
			if cur != aiderDev || (gap && devCmd) {
				flush()
				cur = aiderDev
			}
			if devLines > 0 {
				p.text = append(p.text, '\n')
			}
			devLines++
			t := aiderDevText(l)
			if len(t) > 0 {
				if devText == 0 {
					devCmd = t[0] == '/' || t[0] == '!'
				}
				devText++
			}
			p.text = append(p.text, t...)
		case aiderTool:
			if cur != aiderTool {
				flush()
				cur = aiderTool
			} else {
				p.text = append(p.text, '\n')
			}
			t := bytes.TrimRight(l[1:], " \t")
			if len(t) > 0 && t[0] == ' ' {
				t = t[1:]
			}
			p.text = append(p.text, t...)
			if !haveVersion || !haveModel {
				haveVersion, haveModel = aiderBanner(s, t)
			}
		case aiderAgentText:
			if cur != aiderAgentText {
				flush()
				cur = aiderAgentText
				agentStart = end - len(l)
			}
			agentEnd = end
		}
		gap = false
	}
	flush()
	if len(p.turns) > 0 {
		s.Turns = append([]ub.Turn(nil), p.turns...)
	}
	return s
}

// aiderDevText strips "####", the space after it and the two trailing spaces.
func aiderDevText(l []byte) []byte {
	t := l[4:]
	if aiderBlank(t) {
		return nil
	}
	t = t[1:] // aiderIsDevLine: a space follows "####"
	return bytes.TrimSuffix(t, []byte("  "))
}

// aiderBanner records in s.Meta the aider version and model named by a
// startup console line, and reports which of the two s.Meta now holds.
func aiderBanner(s *ub.Session, t []byte) (version, model bool) {
	_, version = s.Meta["aider_version"]
	_, model = s.Meta["model"]
	if !version {
		if v, ok := bytes.CutPrefix(t, []byte("Aider v")); ok {
			if i := bytes.IndexByte(v, ' '); i >= 0 {
				v = v[:i]
			}
			s.Meta["aider_version"] = string(v)
			return true, model
		}
	}
	if !model {
		for _, pre := range []string{"Model: ", "Models: ", "Main model: "} {
			if m, ok := bytes.CutPrefix(t, []byte(pre)); ok {
				if i := bytes.Index(m, []byte(" with ")); i >= 0 {
					m = m[:i]
				}
				s.Meta["model"] = string(m)
				return version, true
			}
		}
	}
	return version, model
}

// devTurn classifies one developer message (rules 4-8) and appends its turn.
func (p *aiderParser) devTurn(text string) {
	if text == "" {
		text = "<blank>" // only empty lines: an empty submission
	}
	if aiderIsConfirmation(text) {
		p.turns = append(p.turns, ub.Turn{Role: ub.RoleTool, Text: text, Meta: map[string]any{"kind": "confirm"}})
		return
	}
	t := ub.Turn{Role: ub.RoleDeveloper, Text: text}
	switch {
	case text == "<blank>":
		t.IsCommand = true
		t.Meta = map[string]any{"blank": true}
	case len(p.turns) > 0 && aiderEchoOf(&p.turns[len(p.turns)-1], text) != "":
		t.IsCommand = true
		t.Meta = map[string]any{"echo_of": aiderEchoOf(&p.turns[len(p.turns)-1], text)}
	case text[0] == '/' || text[0] == '!':
		t.IsCommand = true
	}
	p.turns = append(p.turns, t)
}

// aiderIsConfirmation reports whether a message is aider's logged yes/no prompt
// with its answer, e.g. "Add file to the chat? (Y)es/(N)o/(A)ll [Yes]: all".
func aiderIsConfirmation(text string) bool {
	if strings.IndexByte(text, '\n') >= 0 || !strings.Contains(text, "(Y)es/(N)o") {
		return false
	}
	return strings.Contains(text, " [Yes]:") || strings.Contains(text, " [No]:")
}

// aiderEchoOf returns the command prev ran when text is aider's echo of its
// argument (rule 6), or "".
func aiderEchoOf(prev *ub.Turn, text string) string {
	if prev.Role != ub.RoleDeveloper || !prev.IsCommand || prev.Meta != nil || prev.Text[0] != '/' {
		return ""
	}
	cmd, arg, ok := strings.Cut(prev.Text, " ")
	if !ok {
		return ""
	}
	arg = strings.TrimSpace(arg)
	if arg == "" {
		return ""
	}
	if strings.TrimSpace(text) == arg || (cmd == "/help" && strings.HasPrefix(text, "# Question: "+arg)) {
		return cmd
	}
	return ""
}

// aiderTrimBlankLines drops leading and trailing lines that hold only
// spaces and tabs.
func aiderTrimBlankLines(b []byte) []byte {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		if !aiderBlank(b[:i]) {
			break
		}
		b = b[min(i+1, len(b)):]
	}
	for len(b) > 0 {
		i := bytes.LastIndexByte(b, '\n')
		if !aiderBlank(b[i+1:]) {
			break
		}
		b = b[:max(i, 0)]
	}
	return b
}
