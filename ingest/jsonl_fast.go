package ingest

import (
	"encoding/binary"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// fastCanonical decodes the common form of a canonical JSONL line (an
// object whose keys are exactly the schema's lowercase names, each once,
// whose values are strings, booleans and the turns array, with no "meta")
// into c, and reports whether it could. Anything else (another key, a
// repeated key, null, a number, a meta object, a lone surrogate escape, bad
// syntax) returns false and the line goes to the general decoders, whose
// result and messages stand; on the lines it takes, this gives the struct
// they would. The strings of unescaped values are slices of the line
// itself, read as a string without a copy: the caller gives the line up,
// and must never change it after (decodeCanonical). A session costs no
// allocation for its text, instead of one per field.
func fastCanonical(line []byte, c *canonicalSession) bool {
	if len(line) == 0 {
		return false
	}
	p := fastParser{b: line, s: unsafe.String(&line[0], len(line))}
	if !p.object(func(key string) bool {
		switch key {
		case "id":
			return p.str(&c.ID)
		case "developer":
			return p.str(&c.Developer)
		case "repo":
			return p.str(&c.Repo)
		case "started_at":
			return p.str(&c.StartedAt)
		case "turns":
			return p.turns(c)
		}
		return false
	}) {
		return false
	}
	p.ws()
	if p.i != len(p.b) {
		return false
	}
	// The names outlive the session (the writer keeps the developers,
	// repositories and edges it has written): copied, they do not keep
	// the whole line alive.
	c.ID, c.Developer, c.Repo = strings.Clone(c.ID), strings.Clone(c.Developer), strings.Clone(c.Repo)
	return true
}

type fastParser struct {
	b   []byte
	s   string // the same bytes, for zero-copy substrings
	i   int
	tmp []byte
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// object reads {"key": value, ...}, calling val for each key (val reads the
// value), and refuses a key seen twice.
func (p *fastParser) object(val func(key string) bool) bool {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return false
	}
	p.i++
	var seen [6]string
	n := 0
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return true
	}
	for {
		var key string
		p.ws()
		if !p.str(&key) {
			return false
		}
		for _, k := range seen[:n] {
			if k == key {
				return false
			}
		}
		if n == len(seen) {
			return false
		}
		seen[n] = key
		n++
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return false
		}
		p.i++
		p.ws()
		if !val(key) {
			return false
		}
		if done, ok := p.next('}'); !ok || done {
			return ok
		}
	}
}

// next reads what follows a member or element: a comma (done false) or
// the closing byte (done true); anything else is not ok.
func (p *fastParser) next(closing byte) (done, ok bool) {
	p.ws()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return false, true
	case closing:
		p.i++
		return true, true
	}
	return false, false
}

func (p *fastParser) turns(c *canonicalSession) bool {
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		c.Turns = []canonicalTurn{}
		return true
	}
	ts := make([]canonicalTurn, 0, 16)
	for {
		p.ws()
		var t canonicalTurn
		if !p.object(func(key string) bool {
			switch key {
			case "role":
				return p.str(&t.Role)
			case "text":
				var s string
				if !p.str(&s) {
					return false
				}
				t.Text = &s
				return true
			case "ts":
				return p.str(&t.TS)
			case "is_command":
				return p.boolean(&t.IsCommand)
			}
			return false
		}) {
			return false
		}
		ts = append(ts, t)
		done, ok := p.next(']')
		if !ok {
			return false
		}
		if done {
			c.Turns = ts
			return true
		}
	}
}

func (p *fastParser) boolean(v *bool) bool {
	switch {
	case len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "true":
		*v, p.i = true, p.i+4
	case len(p.b)-p.i >= 5 && string(p.b[p.i:p.i+5]) == "false":
		*v, p.i = false, p.i+5
	default:
		return false
	}
	return true
}

// str reads a JSON string (the line is valid UTF-8, checked before).
func (p *fastParser) str(v *string) bool {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return false
	}
	p.i++
	start := p.i
	p.i = plainRun(p.b, p.i)
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		*v = p.s[start:p.i]
		p.i++
		return true
	case c == '\\':
		return p.escaped(start, v)
	}
	return false // a control byte
}

// Bytes of which a JSON string needs nothing done, eight at a time:
// plainRun skips a word unless one of its bytes is a quote, a backslash
// or below 0x20 (each test is exact for "some byte of the word is": (x -
// 0x01...) &^ x & 0x80... is non-zero just when a byte of x is 0).
const (
	lsb  = 0x0101010101010101
	msb  = 0x8080808080808080
	quot = '"' * lsb
	bsl  = '\\' * lsb
	ctl  = 0x20 * lsb
)

// plainRun returns the index of the first byte of b at or after i that is a
// quote, a backslash or a control byte (below 0x20), or len(b).
func plainRun(b []byte, i int) int {
	for {
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			q, s := w^quot, w^bsl
			if ((q-lsb)&^q|(s-lsb)&^s|(w-ctl)&^w)&msb != 0 {
				break
			}
		}
		// The word that stopped the loop (or the tail): byte by byte
		// up to its end, then eight at a time again.
		end := min(i+8, len(b))
		for ; i < end; i++ {
			if c := b[i]; c == '"' || c == '\\' || c < 0x20 {
				return i
			}
		}
		if i >= len(b) {
			return i
		}
	}
}

// escaped goes on with a string that has an escape at p.i.
func (p *fastParser) escaped(start int, v *string) bool {
	out := append(p.tmp[:0], p.b[start:p.i]...)
	defer func() { p.tmp = out[:0] }()
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			*v = string(out)
			p.i++
			return true
		case c < 0x20:
			return false
		case c != '\\':
			run := plainRun(p.b, p.i)
			out = append(out, p.b[p.i:run]...)
			p.i = run
			continue
		}
		if p.i+1 >= len(p.b) {
			return false
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return false
			}
			if utf16.IsSurrogate(r) {
				// Only a high surrogate followed by a low one; a lone
				// half goes to the general decoders.
				if r >= 0xDC00 || p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
					return false
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok {
					return false
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return false
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			return false
		}
	}
	return false
}

func (p *fastParser) hex4() (rune, bool) {
	if len(p.b)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
