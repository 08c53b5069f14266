package probes

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// The probe of this file.
const (
	ProbeP0 = "P0"
)

func init() {
	register(Probe{Name: ProbeP0, Description: "task mismatch: the user states another customer's user id and none of its own",
		Applies:    func(e *View) bool { return e.Task != nil },
		Find:       ProbeTaskMismatch,
		ReviewCode: "other"})
}

// userIDRE matches tau-bench user ids (mia_li_3668, raj_sanchez_7340) in
// normalised text. It is the definition userIDLocs implements without the
// regexp engine (tested and fuzzed against it).
var userIDRE = regexp.MustCompile(`\b[a-z]+_[a-z]+(?:_[a-z]+)?_\d{3,}\b`)

// paymentPrefixes mark payment-method ids (credit_card_4421486,
// gift_card_7091239), which are not a customer's identity.
var paymentPrefixes = []string{"credit_card_", "gift_card_", "debit_card_", "bank_account_", "travel_certificate_", "paypal_", "certificate_"}

func isPaymentID(id string) bool {
	for _, p := range paymentPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// mayHoldUserID reports whether s has what every userIDRE match has, "_"
// and three digits: most text has not, and the regexp is slow.
func mayHoldUserID(s string) bool {
	for {
		i := strings.IndexByte(s, '_')
		if i < 0 {
			return false
		}
		s = s[i+1:]
		if len(s) >= 3 && isDigit(s[0]) && isDigit(s[1]) && isDigit(s[2]) {
			return true
		}
	}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func userIDs(norm string) []string {
	var out []string
	for _, loc := range userIDLocs(norm) {
		if id := norm[loc[0]:loc[1]]; !isPaymentID(id) {
			out = append(out, id)
		}
	}
	return out
}

// userIDLocs is userIDRE.FindAllStringIndex(s, -1) in one pass over s. A
// match runs from a word boundary to a word boundary over word characters
// only (ASCII letters, digits, "_"), so it is a whole maximal run of them:
// the matches are the runs that fit the pattern as a whole.
func userIDLocs(s string) [][]int {
	if !mayHoldUserID(s) {
		return nil
	}
	var out [][]int
	for i := 0; i < len(s); {
		if !isWordByte(s[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isWordByte(s[j]) {
			j++
		}
		if isUserID(s[i:j]) {
			out = append(out, []int{i, j})
		}
		i = j
	}
	return out
}

// isWordByte reports whether c is a word character of the regexp \b
// (ASCII letters, digits and "_").
func isWordByte(c byte) bool {
	return c == '_' || isDigit(c) || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isUserID reports whether w matches userIDRE's pattern as a whole: two or
// three "_"-separated runs of a-z, then "_" and at least three digits.
func isUserID(w string) bool {
	parts := 0
	for {
		k := strings.IndexByte(w, '_')
		if k < 0 {
			break
		}
		if k == 0 || !allLower(w[:k]) {
			return false
		}
		parts++
		w = w[k+1:]
	}
	if parts < 2 || parts > 3 || len(w) < 3 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if !isDigit(w[i]) {
			return false
		}
	}
	return true
}

func allLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// ProbeTaskMismatch (P0): the user states a user id that is not in its
// task's blueprint, that the agent did not say first, and that is not a
// payment-method id, and never states one that is in the blueprint. Such an
// episode does not belong to its task. One finding, at the first foreign id.
func ProbeTaskMismatch(e *View) []Finding {
	if e.Task == nil {
		return nil
	}
	e.Task.derive()
	own := e.Task.own
	// What the agent said matters only where a user states an id: the
	// agent's messages are read (and normalised) then, those since the
	// last such user message, in order.
	agentSaid := map[string]bool{}
	var unread []int // the agent's messages not yet read
	read := func() {
		for _, ai := range unread {
			for _, id := range userIDs(e.Messages[ai].text()) {
				agentSaid[id] = true
			}
		}
		unread = unread[:0]
	}
	var first *Finding
	statesOwn := false
	for mi, m := range e.Messages {
		if m.Content == "" || m.Role != "assistant" && m.Role != "user" {
			continue
		}
		if m.Role == "assistant" {
			unread = append(unread, mi)
			continue
		}
		norm := e.Messages[mi].text()
		for _, loc := range userIDLocs(norm) {
			id := norm[loc[0]:loc[1]]
			if isPaymentID(id) {
				continue
			}
			read()
			switch {
			case agentSaid[id]:
			case own[id]:
				statesOwn = true
			case first == nil:
				first = &Finding{SimulationID: e.SimulationID, Probe: ProbeP0, TurnIdx: turn(m.TurnIdx),
					Evidence: span(norm, loc[0], loc[1]), Detail: map[string]string{"user_id": id, "own": strings.Join(slices.Sorted(maps.Keys(own)), " ")}}
			}
		}
	}
	if first == nil || statesOwn {
		return nil
	}
	return []Finding{*first}
}
