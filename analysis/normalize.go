package analysis

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

var folder = cases.Fold()

// Normalize prepares text for matching as SPEC 6.1 says: Unicode NFKC,
// U+00A0 and U+202F (no-break spaces) as plain spaces, markdown emphasis
// "**" removed, case-folded. Typographic apostrophes (U+2019) become "'" and
// runs of white space one space, so a phrase matches however it was typed.
func Normalize(s string) string {
	s = norm.NFKC.String(s)
	s = strings.NewReplacer("\u00a0", " ", "\u202f", " ", "**", "", "\u2019", "'", "\u2018", "'").Replace(s)
	s = folder.String(s)
	return strings.Join(strings.Fields(s), " ")
}
