package analysis

import (
	"strings"
	"testing"
)

// TestNormalizeASCIIPath checks Normalize's ASCII shortcut against its
// general path (NFKC, replacements, case folding) on every ASCII byte and on
// texts with emphasis, capitals and runs of white space.
func TestNormalizeASCIIPath(t *testing.T) {
	var all strings.Builder
	for c := 0; c < 0x80; c++ {
		all.WriteByte(byte(c))
	}
	tests := []string{
		all.String(),
		"",
		"My user ID is **Mia_Li_3668**.",
		"***bold*** and  \t\n spaced   OUT",
		"Airplane Mode is ON; WI-FI calling: off",
		"KELVIN K and the \x7f DEL",
	}
	for _, in := range tests {
		want := strings.Join(strings.Fields(normalizeUnicode(in)), " ")
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, general path gives %q", in, got, want)
		}
	}
}

// TestCollapseSpace checks collapseSpace against strings.Fields and Join on
// Unicode white space (U+0085, U+00A0, U+2003, U+3000), invalid UTF-8 and
// text without any space.
func TestCollapseSpace(t *testing.T) {
	for _, in := range []string{"", " ", "a", "  a  b\t\nc  ", "x\u0085y\u00a0z\u2003w\u3000v", "\xff \xfe\x80 ok", "caf\u00e9\u202f", "\u2028\u2029a"} {
		want := strings.Join(strings.Fields(in), " ")
		if got := collapseSpace(in); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzCollapseSpace(f *testing.F) {
	f.Add("a \u00a0b\xff")
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := collapseSpace(in), strings.Join(strings.Fields(in), " "); got != want {
			t.Errorf("collapseSpace(%q) = %q, want %q", in, got, want)
		}
	})
}

// TestNormalizeUnicode pins the general path: no-break spaces, typographic
// apostrophes, compatibility forms and case folding.
func TestNormalizeUnicode(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Mia\u202fLi", "mia li"},
		{"I\u2019m **Mia**\u00a0Li", "i'm mia li"},
		{"\uff2d\uff49\uff41", "mia"}, // fullwidth letters, NFKC
		{"Stra\u00dfe", "strasse"},    // full case folding of sharp s
	}
	for _, tt := range tests {
		if got := Normalize(tt.in); got != tt.want {
			t.Errorf("Normalize(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzNormalizeASCIIPath(f *testing.F) {
	f.Add("My user ID is **Mia_Li_3668**.")
	f.Fuzz(func(t *testing.T, in string) {
		if !isASCII(in) {
			return
		}
		want := strings.Join(strings.Fields(normalizeUnicode(in)), " ")
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, general path gives %q", in, got, want)
		}
	})
}

// TestMayHoldUserID checks the prefilter of userIDs against userIDRE itself:
// it may pass text without a user id, never reject one with.
func TestMayHoldUserID(t *testing.T) {
	tests := []string{
		"my user id is mia_li_3668.",
		"raj_sanchez_7340",
		"a_b_c_123 and more",
		"credit_card_4421486",
		"get_user_details please",
		"snake_case_12 only two digits",
		"_123",
		"no underscore 12345",
		"",
	}
	for _, in := range tests {
		if userIDRE.MatchString(in) && !mayHoldUserID(in) {
			t.Errorf("mayHoldUserID(%q) = false, but userIDRE matches", in)
		}
	}
	if mayHoldUserID("get_user_details please") || mayHoldUserID("no underscore 12345") {
		t.Error("mayHoldUserID passes text without \"_\" and three digits")
	}
}

func FuzzMayHoldUserID(f *testing.F) {
	f.Add("my user id is mia_li_3668.")
	f.Fuzz(func(t *testing.T, in string) {
		if userIDRE.MatchString(in) && !mayHoldUserID(in) {
			t.Errorf("mayHoldUserID(%q) = false, but userIDRE matches", in)
		}
	})
}
