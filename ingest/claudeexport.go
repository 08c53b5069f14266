package ingest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/ingest/lines"
	"regexp"
	"strings"
	"time"
)

// Claude Code sessions exported to Markdown by a transcript-export tool:
//
//	# Claude Session Export
//	## Session Information
//	- **Session ID**: `<uuid>`
//	- **Project Path**: `/path`
//	...
//	## Conversation
//	### User
//	> 12/1/2025, 2:39:24 PM
//
//	body
//
//	---
//
//	### Assistant
//	...
//
// A message starts at a "### User" or "### Assistant" line that follows a
// "---" line or the "## Conversation" heading; the "---" before the next
// message is not part of the body. The "> M/D/YYYY, h:mm:ss AM" line carries
// no zone and is read as UTC. A body that is a JSON array of content blocks is
// read like a transcript's message content (text, tool_use, tool_result); any
// other body is text. User text follows the transcript rules (claudecode.go):
// the export keeps no isMeta flag, so injected text is recognized by its
// opening only (wrappers, the un-tagged caveat, "Stop hook feedback:").
// Consecutive assistant text messages are merged into one agent turn.
//
// Session.ID is the Session ID of the header (a StableID when missing),
// Session.Repo the Project Path. A file whose first line is not the
// "# Claude Session Export" heading is reported and skipped; so is a file
// with invalid UTF-8 or a NUL byte. Each "# Claude Session Export" line
// starts a new session.

var (
	claudeExportTSRE   = regexp.MustCompile(`^> (\d{1,2}/\d{1,2}/\d{4}, \d{1,2}:\d{2}:\d{2} [AP]M)\s*$`)
	claudeExportInfoRE = regexp.MustCompile(`^- \*\*([^*]+)\*\*:\s*(.*)$`)
)

const claudeExportTimeLayout = "1/2/2006, 3:04:05 PM"

// claudeExportTime reads an export timestamp as UTC (the export has no zone).
func claudeExportTime(s string) time.Time {
	t, err := time.Parse(claudeExportTimeLayout, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// claudeExport gathers one exported session.
type claudeExport struct {
	s         *claudeSession
	info      map[string]string
	inConv    bool
	role      string // "User" or "Assistant" of the open message, "" for none
	msgLine   int
	msgTS     time.Time
	body      []string
	users     int
	assistant int
}

func (e *claudeExport) flush() {
	if e.role == "" {
		return
	}
	// drop the trailing "---" separator and blank lines
	b := e.body
	for len(b) > 0 && strings.TrimSpace(b[len(b)-1]) == "" {
		b = b[:len(b)-1]
	}
	if len(b) > 0 && strings.TrimSpace(b[len(b)-1]) == "---" {
		b = b[:len(b)-1]
	}
	body := strings.TrimSpace(strings.Join(b, "\n"))
	s, ts, line := e.s, e.msgTS, e.msgLine
	if s.started.IsZero() && !ts.IsZero() {
		s.started = ts
	}
	blocks := claudeExportBlocks(body)
	if e.role == "User" {
		e.users++
		if blocks != nil {
			s.user("", blocks, false, userFlags{}, ts, line)
		} else {
			s.user(body, nil, true, userFlags{}, ts, line)
		}
	} else {
		e.assistant++
		if blocks == nil {
			blocks = []claudeBlock{{Type: "text", Text: body}}
		}
		for i := range blocks {
			b := &blocks[i]
			switch b.Type {
			case "text":
				if strings.TrimSpace(b.Text) != "" {
					s.agentText(b.Text, "", "", nil, ts, line)
				}
			case "tool_use", "server_tool_use":
				s.toolUse(b, ts, line)
			}
		}
	}
	e.role, e.body = "", e.body[:0]
}

// claudeExportBlocks decodes a body that is a JSON array of content blocks;
// nil when it is anything else (text that merely looks like JSON stays text).
func claudeExportBlocks(body string) []claudeBlock {
	if !strings.HasPrefix(body, "[") || !strings.HasSuffix(body, "]") {
		return nil
	}
	var blocks []claudeBlock
	if json.Unmarshal([]byte(body), &blocks) != nil || len(blocks) == 0 {
		return nil
	}
	for _, b := range blocks {
		if b.Type == "" {
			return nil
		}
	}
	return blocks
}

func (e *claudeExport) finish(path string) *ub.Session {
	e.flush()
	s := e.s
	if id := strings.Trim(e.info["Session ID"], "` "); id != "" {
		s.id = id
	}
	if p := strings.Trim(e.info["Project Path"], "` "); p != "" {
		s.cwds = []string{p}
	}
	if s.started.IsZero() {
		s.started = claudeExportTime(e.info["First Message"])
	}
	out := s.session(path)
	if out == nil {
		return nil
	}
	meta := map[string]any{"messages": map[string]any{"user": e.users, "assistant": e.assistant}}
	for k, name := range map[string]string{"Export Mode": "export_mode", "Total Messages": "total_messages"} {
		if v := strings.Trim(e.info[k], "` "); v != "" {
			meta[name] = v
		}
	}
	out.Meta = meta
	return out
}

// ParseClaudeExport parses a Claude Code session exported to Markdown. The
// rules are in the comment at the top of this file.
func ParseClaudeExport(src Source, sink Sink) error {
	r := lines.NewReader(src.R)
	var (
		done     []*claudeExport
		cur      *claudeExport
		prev     string // previous non-blank line, trimmed
		pendTS   bool   // the line after a heading may be its timestamp
		sawFirst bool
	)
	for lineNo := 1; ; lineNo++ {
		raw, unterminated, ok, err := r.Next()
		if err != nil {
			return fmt.Errorf("%s:%d: read: %w", src.Path, lineNo, err)
		}
		if !ok {
			break
		}
		terminated := !unterminated
		reason, truncated := claudeCheckBytes(raw, terminated)
		if reason != "" {
			sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: reason + "; file skipped"})
			return nil
		}
		if truncated {
			sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: "final line cut inside a character (file still being written?)"})
			raw = bytes.ToValidUTF8(raw, nil)
		}
		if lineNo == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")) // byte order mark
		}
		line := string(raw)
		trim := strings.TrimSpace(line)
		if !sawFirst {
			if trim == "" {
				continue
			}
			sawFirst = true
			if trim != "# Claude Session Export" {
				sink.Error(&ParseError{Path: src.Path, Line: lineNo, Reason: `not a Claude session export (no "# Claude Session Export" heading); file skipped`})
				return nil
			}
		}
		switch {
		case trim == "# Claude Session Export":
			if cur != nil {
				cur.flush()
				done = append(done, cur)
			}
			s := newClaudeSession("", lineNo)
			s.export = true
			cur = &claudeExport{s: s, info: map[string]string{}}
			pendTS = false
		case !cur.inConv && trim == "## Conversation":
			cur.inConv = true
		case !cur.inConv:
			if m := claudeExportInfoRE.FindStringSubmatch(trim); m != nil {
				cur.info[strings.TrimSpace(m[1])] = strings.TrimSpace(m[2])
			}
		case (trim == "### User" || trim == "### Assistant") && (prev == "---" || prev == "## Conversation"):
			cur.flush()
			cur.role = strings.TrimPrefix(trim, "### ")
			cur.msgLine = lineNo
			cur.msgTS = time.Time{}
			pendTS = true
		case pendTS && trim != "":
			pendTS = false
			if m := claudeExportTSRE.FindStringSubmatch(trim); m != nil {
				cur.msgTS = claudeExportTime(m[1])
			} else {
				cur.body = append(cur.body, line)
			}
		case cur.role != "":
			cur.body = append(cur.body, line)
		}
		if trim != "" {
			prev = trim
		}
	}
	if cur != nil {
		done = append(done, cur)
	}
	for _, e := range done {
		if err := emit(sink, e.finish(src.Path)); err != nil {
			return err
		}
	}
	return nil
}
