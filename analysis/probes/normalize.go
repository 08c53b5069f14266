package probes

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

var folder = cases.Fold()

// spaces maps the no-break spaces, markdown emphasis and typographic
// apostrophes of Normalize; built once, a Replacer is safe for concurrent use.
var spaces = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "**", "", "\u2019", "'", "\u2018", "'")

// Normalize prepares text for matching as SPEC 6.1 says: Unicode NFKC,
// U+00A0 and U+202F (no-break spaces) as plain spaces, markdown emphasis
// "**" removed, case-folded. Typographic apostrophes (U+2019) become "'" and
// runs of white space one space, so a phrase matches however it was typed.
//
// ASCII text, most of a transcript, takes a shorter path with the same
// result: NFKC leaves ASCII as it is, of the replacements only "**" can
// occur, and case folding of ASCII is lower-casing.
//
// Text whose only non-ASCII characters are common punctuation and symbols
// (quotes, dashes, arrows, bullets, no-break spaces, a few emoji:
// plainRunes) takes it too: those characters fold to themselves, compose
// with nothing, and their compatibility forms are fixed strings.
func Normalize(s string) string {
	if isPlain(s) {
		return normalizeASCII(s)
	}
	return collapseSpace(normalizeUnicode(s))
}

// plainRunes maps the non-ASCII characters of Normalize's short path to
// what NFKC, the replacements and case folding make of them: no-break and
// em spaces a space, typographic single quotes "'", the non-breaking hyphen
// a hyphen, the ellipsis "...", superscript four "4", the others themselves
// (roughly ordered by how often the tau2 corpus has them). None is a
// combining mark or composes with a neighbour (tested against the general
// path).
var plainRunes = map[rune]string{
	'\u2019': "'", '\u201c': "\u201c", '\u201d': "\u201d", '\u2014': "\u2014", '\u2192': "\u2192",
	'\u202f': " ", '\u2013': "\u2013", '\u2022': "\u2022", '\u00d7': "\u00d7", '\u2194': "\u2194",
	'\u00a0': " ", '\u2018': "'", '\u2011': "\u2010", '\u2003': " ", '\u2026': "...", '\u2212': "\u2212",
	'\u2264': "\u2264", '\u2265': "\u2265", '\u2074': "4", '\U0001f50b': "\U0001f50b", '\U0001f4f5': "\U0001f4f5",
	'\U0001f4f6': "\U0001f4f6", '\U0001f4f1': "\U0001f4f1",
}

// isPlain reports whether s is ASCII but for plainRunes.
func isPlain(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if _, ok := plainRunes[r]; !ok {
			return false
		}
		i += n
	}
	return true
}

// collapseSpace is strings.Join(strings.Fields(s), " ") without the slice
// of fields: runs of white space (unicode.IsSpace) one space, none at either
// end, every other byte kept as it is.
func collapseSpace(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[i:])
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			i += n
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteString(s[i : i+n])
		i += n
	}
	return b.String()
}

// normalizeASCII is Normalize of ASCII text (and of plain text, isPlain)
// in one pass: "**" removed (left to right, as strings.ReplaceAll),
// lower-cased, plainRunes replaced, runs of white space (as strings.Fields
// sees it in ASCII, and the no-break spaces) one space, none at either end.
// Runs of bytes that stay as they are (asciiKeep, and a lone space between
// two of them) are copied at once.
func normalizeASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			i += n - 1
			to := plainRunes[r]
			if to == " " {
				space = b.Len() > 0
				continue
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(to)
			continue
		}
		if asciiKeep[c] {
			j := i + 1
			for j < len(s) {
				if asciiKeep[s[j]] {
					j++
				} else if s[j] == ' ' && j+1 < len(s) && asciiKeep[s[j+1]] {
					j += 2
				} else {
					break
				}
			}
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(s[i:j])
			i = j - 1
			continue
		}
		switch {
		case c == '*' && i+1 < len(s) && s[i+1] == '*':
			i++
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r':
			space = b.Len() > 0
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteByte(c)
	}
	return b.String()
}

// asciiKeep marks the bytes normalizeASCII copies as they are: ASCII but
// upper-case letters, white space and "*" (non-ASCII bytes are false).
var asciiKeep = func() (t [256]bool) {
	for c := 0; c < utf8.RuneSelf; c++ {
		t[c] = !('A' <= c && c <= 'Z') && c != '*' && !strings.ContainsRune(" \t\n\v\f\r", rune(c))
	}
	return t
}()

// normalizeUnicode is Normalize's general path before white space is
// collapsed.
func normalizeUnicode(s string) string {
	s = norm.NFKC.String(s)
	s = spaces.Replace(s)
	return folder.String(s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
