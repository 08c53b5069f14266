package probes

import (
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
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
		// runs copied at once, and the lone spaces inside them
		"a b", " a", "a ", "a *b", "a ** b", "x  y", "A b C", "ab cd\nef gh", "one two* **three",
		"it\u2019s 10\u00a0am \u2014 ok", "end \u202f",
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

// userIDCases are texts for userIDLocs against userIDRE: ids at either end,
// in punctuation, inside longer words, with capitals, four parts, payment
// ids, non-ASCII neighbours and invalid UTF-8.
var userIDCases = []string{
	"my user id is mia_li_3668.",
	"raj_sanchez_7340",
	"a_b_c_123 and more",
	"a_b_c_d_123 five parts",
	"credit_card_4421486, then mia_li_3668",
	"xmia_li_3668 mia_li_3668x mia_li_3668_ _mia_li_3668",
	"Mia_li_3668 mia_Li_3668 mia_li_36 mia_li_12a4",
	"(mia_li_3668)é\u202fmia_li_3668\xffmia_li_3668",
	"mia__li_3668 mia_li__3668 mia_li_3668_123 mia_3668",
	"mia_li_3668,raj_sanchez_7340;noah_brown_9999",
	"",
}

// TestUserIDLocs checks the one-pass matcher against the regexp it
// implements.
func TestUserIDLocs(t *testing.T) {
	for _, in := range userIDCases {
		if got, want := userIDLocs(in), userIDRE.FindAllStringIndex(in, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("userIDLocs(%q) = %v, userIDRE finds %v", in, got, want)
		}
	}
}

func FuzzUserIDLocs(f *testing.F) {
	for _, in := range userIDCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if got, want := userIDLocs(in), userIDRE.FindAllStringIndex(in, -1); !reflect.DeepEqual(got, want) {
			t.Errorf("userIDLocs(%q) = %v, userIDRE finds %v", in, got, want)
		}
	})
}

// plainText makes text of ASCII and plainRunes from arbitrary bytes: a byte
// of 0x80 and above picks a plain rune, so the fuzzer reaches the short
// path with every neighbour (emphasis, capitals, white space).
func plainText(in string) string {
	var runes []rune
	for r := range plainRunes {
		runes = append(runes, r)
	}
	sort.Slice(runes, func(i, j int) bool { return runes[i] < runes[j] })
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		if c := in[i]; c < utf8.RuneSelf {
			b.WriteByte(c)
		} else {
			b.WriteRune(runes[int(c)%len(runes)])
		}
	}
	return b.String()
}

// TestNormalizePlainPath checks the short path on text with plainRunes
// against the general path (NFKC, replacements, case folding).
func TestNormalizePlainPath(t *testing.T) {
	tests := []string{
		"I\u2019m **Mia**\u00a0Li \u2014 \u201cok\u201d \u2192 \u2022 2\u00d73 \u2194 \u2018x\u2019",
		"\u202f\u00a0lead and trail\u00a0 \u202f",
		"*\u2019* *\u00a0* **\u2014**",
		"A\u2013B\u2192C\n\u2022 D",
	}
	for r := range plainRunes {
		tests = append(tests, string(r), "X"+string(r)+"Y", " "+string(r)+" ", "**"+string(r))
	}
	for _, in := range tests {
		if !isPlain(in) {
			t.Fatalf("isPlain(%q) = false", in)
		}
		want := strings.Join(strings.Fields(normalizeUnicode(in)), " ")
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, general path gives %q", in, got, want)
		}
	}
	if isPlain("caf\u00e9") || isPlain("\u00bd") || isPlain("\u212a") || isPlain("\xff") {
		t.Error("isPlain passes a character NFKC or folding changes, or invalid UTF-8")
	}
}

func FuzzNormalizePlainPath(f *testing.F) {
	f.Add("I\x80m **Mia**\x8b Li \x81 ok")
	f.Fuzz(func(t *testing.T, in string) {
		in = plainText(in)
		want := strings.Join(strings.Fields(normalizeUnicode(in)), " ")
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, general path gives %q", in, got, want)
		}
	})
}

// TestKnownIdentifiers: the identifiers of known_info texts, written out
// by hand; the regexps run only on text that can match them, so a text
// without "@", a digit or "#" must still give its names and user ids.
func TestKnownIdentifiers(t *testing.T) {
	tests := []struct {
		text string
		want []identifier
	}{
		{"You are Mia Li. Your user id is mia_li_3668, email mia.li3668@example.com, phone (555) 123-4567. Reservation ABC123, order #W1234567.",
			[]identifier{{"user_id", "mia_li_3668"}, {"name", "mia li"}, {"email", "mia.li3668@example.com"}, {"phone", "(555) 123-4567"},
				{"reservation", "abc123"}, {"order", "#w1234567"}}},
		{"My name is Yusuf Rossi and I live in Philadelphia", []identifier{{"name", "yusuf rossi"}}},
		{"you are Ann Bo, with no number at all", []identifier{{"name", "ann bo"}}},
		{"Reservation XYZ789 only", []identifier{{"reservation", "xyz789"}}},
		{"Order #W7654321 and phone 555.987.6543", []identifier{{"phone", "555.987.6543"}, {"order", "#w7654321"}}},
		{"reservation ABCDEF has no digit, and no one is named", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if got := knownIdentifiers(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("knownIdentifiers(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}
