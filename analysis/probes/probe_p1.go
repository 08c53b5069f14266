package probes

import (
	"regexp"
	"strings"
)

// The probes of this file.
const (
	ProbeP1  = "P1"
	ProbeP1a = "P1a"
)

func init() {
	register(Probe{Name: ProbeP1, Description: "unprompted disclosure: a known_info identifier before the agent asked for that kind of field",
		Applies:    func(e *View) bool { return len(taskIdentifiers(e)) > 0 },
		Find:       func(e *View) []Finding { return probeDisclosure(e, taskIdentifiers(e), false) },
		ReviewCode: "revealed_info_early"})
	register(Probe{Name: ProbeP1a, Description: "unprompted disclosure in the first user message",
		Applies:    func(e *View) bool { return len(taskIdentifiers(e)) > 0 },
		Find:       func(e *View) []Finding { return probeDisclosure(e, taskIdentifiers(e), true) },
		ReviewCode: "revealed_info_early"})
}

// identifier is a disclosable fact of a blueprint.
type identifier struct {
	kind  string // user_id | name | email | phone | reservation | order
	value string // normalised
}

var (
	nameRE        = regexp.MustCompile(`(?:[Yy]ou are|[Yy]our name is|[Mm]y name is)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)`)
	emailRE       = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	phoneRE       = regexp.MustCompile(`\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b`)
	reservationRE = regexp.MustCompile(`\b[A-Z0-9]{6}\b`)
	orderRE       = regexp.MustCompile(`#[A-Z]\d{7}\b`)
)

// knownIdentifiers extracts the identifiers of a known_info text: user ids,
// names introduced by "You are" / "Your name is", emails, phone numbers,
// reservation codes (six upper-case letters and digits, at least one of
// each) and order ids (#W1234567).
func knownIdentifiers(text string) []identifier {
	var out []identifier
	seen := map[string]bool{}
	add := func(kind, v string) {
		v = Normalize(v)
		if v != "" && !seen[kind+v] {
			seen[kind+v] = true
			out = append(out, identifier{kind, v})
		}
	}
	for _, id := range userIDs(Normalize(text)) {
		add("user_id", id)
	}
	// Each regexp is run only on text that has what all its matches have
	// (Go's regexps try every position of a text they cannot match).
	if strings.Contains(text, "ou are") || strings.Contains(text, " name is") {
		for _, m := range nameRE.FindAllStringSubmatch(text, -1) {
			add("name", m[1])
		}
	}
	if strings.IndexByte(text, '@') >= 0 {
		for _, m := range emailRE.FindAllString(text, -1) {
			add("email", m)
		}
	}
	if !strings.ContainsAny(text, "0123456789") {
		return out // every phone, reservation and order id has a digit
	}
	for _, m := range phoneRE.FindAllString(text, -1) {
		add("phone", m)
	}
	for _, m := range reservationRE.FindAllString(text, -1) {
		if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			add("reservation", m)
		}
	}
	if strings.IndexByte(text, '#') >= 0 {
		for _, m := range orderRE.FindAllString(text, -1) {
			add("order", m)
		}
	}
	return out
}

// askWords are the phrases with which an agent asks for a kind of field;
// asking to identify or verify the customer asks for every identity field.
var askWords = map[string][]string{
	"user_id":     {"user id", "user_id", "userid", "username", "user name", "customer id", "account id"},
	"name":        {"name"},
	"email":       {"email", "e-mail"},
	"phone":       {"phone", "number"},
	"reservation": {"reservation", "confirmation", "booking"},
	"order":       {"order"},
}

var identityAsk = []string{"identify", "verify", "authenticate", "look up your account", "locate your account", "your account", "your details"}

// asksFor reports whether an agent's normalised message asks for a kind of
// field; identity says whether it asks to identify the customer
// (containsAny(norm, identityAsk), the same for every kind).
func asksFor(norm, kind string, identity bool) bool {
	if identity && kind != "reservation" && kind != "order" {
		return true
	}
	return containsAny(norm, askWords[kind])
}

func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// ProbeDisclosure (P1): a known_info identifier appears in a user message
// before any agent message asked for that kind of field. One finding per
// identifier, at its first unprompted appearance. firstOnly (P1a) looks at
// the first user message only and gives one finding listing what it
// disclosed.
func ProbeDisclosure(e *View, firstOnly bool) []Finding {
	if e.Task == nil {
		return nil
	}
	e.Task.derive()
	return probeDisclosure(e, e.Task.ids, firstOnly)
}

// probeDisclosure is ProbeDisclosure with the task's known identifiers
// extracted already (Run extracts them once for P1 and P1a).
func probeDisclosure(e *View, ids []identifier, firstOnly bool) []Finding {
	if len(ids) == 0 {
		return nil // nothing to disclose
	}
	// What the agent asked for matters only where a user message holds
	// an identifier: the agent's messages are read (and normalised) then,
	// those since the last such user message, in order.
	asked := map[string]bool{}
	var unread []int // the agent's messages not yet read
	read := func() {
		for _, ai := range unread {
			norm := e.Messages[ai].text()
			identity := containsAny(norm, identityAsk)
			for k := range askWords {
				if !asked[k] && asksFor(norm, k, identity) {
					asked[k] = true
				}
			}
		}
		unread = unread[:0]
	}
	done := map[identifier]bool{}
	var out []Finding
	for mi, m := range e.Messages {
		if m.Content == "" || m.Role != "assistant" && m.Role != "user" {
			continue
		}
		if m.Role == "assistant" {
			unread = append(unread, mi)
			continue
		}
		norm := e.Messages[mi].text()
		var kinds, values []string
		first := -1
		for _, id := range ids {
			if done[id] {
				continue
			}
			i := strings.Index(norm, id.value)
			if i < 0 || !wordBounded(norm, i, i+len(id.value)) {
				continue
			}
			if read(); asked[id.kind] {
				continue
			}
			done[id] = true
			if firstOnly {
				kinds, values = append(kinds, id.kind), append(values, id.value)
				if first < 0 || i < first {
					first = i
				}
				continue
			}
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP1, TurnIdx: turn(m.TurnIdx),
				Evidence: span(norm, i, i+len(id.value)), Detail: map[string]string{"kind": id.kind, "value": id.value}})
		}
		if firstOnly {
			if len(kinds) > 0 {
				out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP1a, TurnIdx: turn(m.TurnIdx),
					Evidence: span(norm, first, first), Detail: map[string]string{"kinds": strings.Join(kinds, " "), "values": strings.Join(values, " ")}})
			}
			return out
		}
	}
	return out
}

func wordBounded(s string, lo, hi int) bool {
	isWord := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z'
	}
	return (lo == 0 || !isWord(s[lo-1])) && (hi == len(s) || !isWord(s[hi]))
}
