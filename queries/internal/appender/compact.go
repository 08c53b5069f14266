package appender

// appendCompactJSON appends src to dst as json.Marshal(json.RawMessage(src))
// writes it: whitespace between tokens removed, and <, >, &, U+2028 and
// U+2029 written as \u escapes. It checks that src is one JSON value as
// encoding/json does (grammar only: invalid UTF-8 passes, as it does there)
// and returns ok false, with dst unchanged in length, when src is not one,
// is empty, or nests deeper than encoding/json allows; the caller then asks
// json.Marshal, for its error. encoding/json's compaction steps a state
// machine through a function value per byte: this is a plain loop, and
// copies a run of string bytes at once (json.Marshal took about 15% of the
// writer's CPU of a tau2 ingest).
func appendCompactJSON(dst, src []byte) (out []byte, ok bool) {
	c := compacter{src: src, dst: dst}
	c.space()
	if c.i == len(src) || !c.value(0) {
		return dst, false
	}
	c.space()
	if c.i != len(src) {
		return dst, false
	}
	return c.dst, true
}

// maxJSONDepth is encoding/json's limit on nesting (scanner.go, maxNestingDepth).
const maxJSONDepth = 10000

type compacter struct {
	src, dst []byte
	i        int
}

func (c *compacter) space() {
	for c.i < len(c.src) {
		switch c.src[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// value reads one value at c.i (not whitespace) at nesting depth d.
func (c *compacter) value(d int) bool {
	if c.i >= len(c.src) {
		return false
	}
	switch b := c.src[c.i]; {
	case b == '"':
		return c.str()
	case b == '{':
		return c.object(d + 1)
	case b == '[':
		return c.array(d + 1)
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	case b == '-' || '0' <= b && b <= '9':
		return c.number()
	}
	return false
}

func (c *compacter) literal(lit string) bool {
	if len(c.src)-c.i < len(lit) || string(c.src[c.i:c.i+len(lit)]) != lit {
		return false
	}
	c.dst = append(c.dst, lit...)
	c.i += len(lit)
	return true
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (c *compacter) number() bool {
	s, i := c.src, c.i
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && isDigit(s[i]):
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || !isDigit(s[i]) {
			return false
		}
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	c.dst = append(c.dst, s[c.i:i]...)
	c.i = i
	return true
}

const hexDigits = "0123456789abcdef"

// str reads a string at c.i (its opening quote).
func (c *compacter) str() bool {
	s := c.src
	i := c.i + 1
	start := c.i // bytes of s from start to i are still to be copied
	for i < len(s) {
		b := s[i]
		switch {
		case b == '"':
			c.dst = append(c.dst, s[start:i+1]...)
			c.i = i + 1
			return true
		case b < 0x20:
			return false
		case b == '\\':
			if i+1 >= len(s) {
				return false
			}
			switch s[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(s) {
					return false
				}
				for _, h := range s[i+2 : i+6] {
					if !isDigit(h) && !('a' <= h && h <= 'f') && !('A' <= h && h <= 'F') {
						return false
					}
				}
				i += 6
			default:
				return false
			}
		case b == '<' || b == '>' || b == '&':
			c.dst = append(c.dst, s[start:i]...)
			c.dst = append(c.dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			i++
			start = i
		case b == 0xE2 && i+2 < len(s) && s[i+1] == 0x80 && s[i+2]&^1 == 0xA8:
			c.dst = append(c.dst, s[start:i]...)
			c.dst = append(c.dst, '\\', 'u', '2', '0', '2', hexDigits[s[i+2]&0xF])
			i += 3
			start = i
		default:
			i++
		}
	}
	return false
}

func (c *compacter) object(d int) bool {
	if d > maxJSONDepth {
		return false
	}
	c.dst = append(c.dst, '{')
	c.i++
	c.space()
	if c.i < len(c.src) && c.src[c.i] == '}' {
		c.dst = append(c.dst, '}')
		c.i++
		return true
	}
	for {
		if c.i >= len(c.src) || c.src[c.i] != '"' || !c.str() {
			return false
		}
		c.space()
		if c.i >= len(c.src) || c.src[c.i] != ':' {
			return false
		}
		c.dst = append(c.dst, ':')
		c.i++
		c.space()
		if !c.value(d) {
			return false
		}
		if more, ok := c.next('}'); !more {
			return ok
		}
	}
}

func (c *compacter) array(d int) bool {
	if d > maxJSONDepth {
		return false
	}
	c.dst = append(c.dst, '[')
	c.i++
	c.space()
	if c.i < len(c.src) && c.src[c.i] == ']' {
		c.dst = append(c.dst, ']')
		c.i++
		return true
	}
	for {
		if !c.value(d) {
			return false
		}
		if more, ok := c.next(']'); !more {
			return ok
		}
	}
}

// next reads what follows a member of an object or an element of an
// array: a comma (more is true: another follows) or the closing byte
// (more false, ok true); anything else is no JSON (both false).
func (c *compacter) next(closing byte) (more, ok bool) {
	c.space()
	if c.i >= len(c.src) {
		return false, false
	}
	switch c.src[c.i] {
	case ',':
		c.dst = append(c.dst, ',')
		c.i++
		c.space()
		return true, true
	case closing:
		c.dst = append(c.dst, closing)
		c.i++
		return false, true
	}
	return false, false
}
