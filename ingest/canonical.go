package ingest

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// canonical re-encodes JSON with sorted keys and no spacing, so the same
// content hashes the same whatever the file's layout: the bytes
// json.Marshal writes of the value encoding/json decodes (into any, with
// UseNumber). It writes them itself (canonicalFast), without decoding
// into maps and encoding those through reflection (a task's key re-encoded
// every task of a run); what that does not read, canonicalExact does.
func canonical(raw json.RawMessage) []byte {
	if b, ok := canonicalFast(raw); ok {
		return b
	}
	return canonicalExact(raw)
}

// canonicalExact is canonical through encoding/json; raw itself when it
// does not begin with a JSON value.
func canonicalExact(raw json.RawMessage) []byte {
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

// canonicalFast writes canonical's bytes of raw when raw is one JSON
// value whose strings are valid UTF-8 and hold no \u escape of a
// surrogate (ok false otherwise, or when it nests deeper than
// encoding/json reads): an object's names sorted as Go strings, the last
// of a repeated name kept, strings written as encoding/json writes them
// (HTML characters escaped), numbers as the file has them.
func canonicalFast(raw []byte) (out []byte, ok bool) {
	c := canonicalizer{src: raw}
	c.space()
	out, ok = c.value(nil, 0)
	if !ok {
		return nil, false
	}
	c.space()
	return out, c.i == len(raw)
}

type canonicalizer struct {
	src []byte
	i   int
	key []byte // scratch for an object's names
}

func (c *canonicalizer) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// value appends the canonical form of the value at c.i to dst.
func (c *canonicalizer) value(dst []byte, depth int) ([]byte, bool) {
	if c.i >= len(c.src) {
		return dst, false
	}
	switch b := c.src[c.i]; {
	case b == '"':
		s, ok := c.str()
		if !ok {
			return dst, false
		}
		return appendJSONString(dst, s), true
	case b == '{':
		return c.object(dst, depth+1)
	case b == '[':
		return c.array(dst, depth+1)
	case b == 't':
		return c.literal(dst, "true")
	case b == 'f':
		return c.literal(dst, "false")
	case b == 'n':
		return c.literal(dst, "null")
	case b == '-' || isDigitByte(b):
		return c.number(dst)
	}
	return dst, false
}

func isDigitByte(b byte) bool { return '0' <= b && b <= '9' }

func (c *canonicalizer) literal(dst []byte, lit string) ([]byte, bool) {
	if !bytes.HasPrefix(c.src[c.i:], []byte(lit)) {
		return dst, false
	}
	c.i += len(lit)
	return append(dst, lit...), true
}

// number appends a number as written: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (c *canonicalizer) number(dst []byte) ([]byte, bool) {
	s, i := c.src, c.i
	if s[i] == '-' {
		i++
	}
	digits := func() bool {
		start := i
		for i < len(s) && isDigitByte(s[i]) {
			i++
		}
		return i > start
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return dst, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return dst, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return dst, false
		}
	}
	dst = append(dst, s[c.i:i]...)
	c.i = i
	return dst, true
}

// str reads the string at c.i and returns its text.
func (c *canonicalizer) str() (string, bool) {
	s := c.src
	i := c.i + 1
	start := i
	for i < len(s) && s[i] != '"' && s[i] != '\\' && s[i] >= 0x20 && s[i] < utf8.RuneSelf {
		i++
	}
	if i < len(s) && s[i] == '"' { // plain ASCII: the common case
		c.i = i + 1
		return string(s[start:i]), true
	}
	var b []byte
	b = append(b, s[start:i]...)
	for i < len(s) {
		ch := s[i]
		switch {
		case ch == '"':
			c.i = i + 1
			return string(b), true
		case ch < 0x20:
			return "", false
		case ch == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch e := s[i+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				if i+6 > len(s) {
					return "", false
				}
				r := rune(0)
				for _, h := range s[i+2 : i+6] {
					var v byte
					switch {
					case isDigitByte(h):
						v = h - '0'
					case 'a' <= h && h <= 'f':
						v = h - 'a' + 10
					case 'A' <= h && h <= 'F':
						v = h - 'A' + 10
					default:
						return "", false
					}
					r = r<<4 | rune(v)
				}
				if 0xD800 <= r && r <= 0xDFFF {
					return "", false // surrogates: encoding/json's own rules
				}
				b = utf8.AppendRune(b, r)
				i += 4
			default:
				return "", false
			}
			i += 2
		case ch < utf8.RuneSelf:
			b = append(b, ch)
			i++
		default:
			r, n := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && n == 1 {
				return "", false // invalid UTF-8: encoding/json's own rules
			}
			b = append(b, s[i:i+n]...)
			i += n
		}
	}
	return "", false
}

// canonicalMember is a name of an object and its value, canonical.
type canonicalMember struct {
	name  string
	value []byte
}

func (c *canonicalizer) object(dst []byte, depth int) ([]byte, bool) {
	if depth > maxCanonicalDepth {
		return dst, false
	}
	c.i++
	c.space()
	var members []canonicalMember
	if c.i < len(c.src) && c.src[c.i] == '}' {
		c.i++
		return append(dst, '{', '}'), true
	}
	for {
		if c.i >= len(c.src) || c.src[c.i] != '"' {
			return dst, false
		}
		name, ok := c.str()
		if !ok {
			return dst, false
		}
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != ':' {
			return dst, false
		}
		c.i++
		c.space()
		v, ok := c.value(nil, depth)
		if !ok {
			return dst, false
		}
		members = append(members, canonicalMember{name, v})
		c.space()
		if c.i >= len(c.src) {
			return dst, false
		}
		if c.src[c.i] == ',' {
			c.i++
			c.space()
			continue
		}
		if c.src[c.i] != '}' {
			return dst, false
		}
		c.i++
		break
	}
	// A repeated name keeps its last value (a map's assignment); the
	// names sorted as json.Marshal sorts a map's keys.
	slices.SortStableFunc(members, func(a, b canonicalMember) int { return strings.Compare(a.name, b.name) })
	dst = append(dst, '{')
	first := true
	for k, m := range members {
		if k+1 < len(members) && members[k+1].name == m.name {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, m.name)
		dst = append(dst, ':')
		dst = append(dst, m.value...)
	}
	return append(dst, '}'), true
}

func (c *canonicalizer) array(dst []byte, depth int) ([]byte, bool) {
	if depth > maxCanonicalDepth {
		return dst, false
	}
	c.i++
	c.space()
	dst = append(dst, '[')
	if c.i < len(c.src) && c.src[c.i] == ']' {
		c.i++
		return append(dst, ']'), true
	}
	for {
		var ok bool
		if dst, ok = c.value(dst, depth); !ok {
			return dst, false
		}
		c.space()
		if c.i >= len(c.src) {
			return dst, false
		}
		if c.src[c.i] == ',' {
			dst = append(dst, ',')
			c.i++
			c.space()
			continue
		}
		if c.src[c.i] != ']' {
			return dst, false
		}
		c.i++
		return append(dst, ']'), true
	}
}

// maxCanonicalDepth is below encoding/json's nesting limit (10000):
// deeper values are left to canonicalExact.
const maxCanonicalDepth = 1000

// appendJSONString appends s (valid UTF-8) quoted as json.Marshal writes
// a string: ", \ and control characters escaped (\b, \f, \n, \r, \t, else
// \u00XX), and <, >, &, U+2028 and U+2029 as \u escapes.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += n
			start = i
			continue
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
