package analysis

import (
	"encoding/json"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// Judge-free probes of SPEC 6.3: deterministic checks that catch a user
// simulator breaking its contract from the trajectory alone. Each works on
// a ProbeEpisode (plain data loaded by queries) and returns findings with the
// turn and the evidence span; Applies says which episodes a probe's rate is
// taken over.

// Probe names. P1a is P1's first-user-message variant.
const (
	ProbeP0  = "P0"
	ProbeP1  = "P1"
	ProbeP1a = "P1a"
	ProbeP2  = "P2"
	ProbeP3  = "P3"
	ProbeP4  = "P4"
	ProbeP5  = "P5"
	ProbeP6  = "P6"
)

// Probes lists the probe names in report order.
var Probes = []string{ProbeP0, ProbeP1, ProbeP1a, ProbeP2, ProbeP3, ProbeP4, ProbeP5, ProbeP6}

// ProbeDescriptions says in a line what each probe flags.
var ProbeDescriptions = map[string]string{
	ProbeP0:  "task mismatch: the user states another customer's user id and none of its own",
	ProbeP1:  "unprompted disclosure: a known_info identifier before the agent asked for that kind of field",
	ProbeP1a: "unprompted disclosure in the first user message",
	ProbeP2:  "missed gold user write: a gold user action with no matching user tool call",
	ProbeP3:  "contradicted device state: the user asserts a state that differs from the true one",
	ProbeP4:  "stop on confirmation: ###STOP### while affirming a confirmation the agent just asked for",
	ProbeP5:  "claimed action without a call: the user says it did a device action it never called",
	ProbeP6:  "protocol violation: several tool calls in one user message, or text with a tool call",
}

// ProbeEpisode is what the probes read of one episode.
type ProbeEpisode struct {
	SimulationID string
	Task         *ProbeTask // nil: the task is unknown
	Messages     []ProbeMessage
}

// ProbeTask is the user's blueprint of a task and its user-side gold facts.
type ProbeTask struct {
	// Blueprint holds the texts the simulator was given (reason_for_call,
	// known_info, unknown_info, task_instructions, persona; v1 instruction;
	// v1 user_id), in that order.
	Blueprint []string
	// KnownInfo is the text of disclosable facts: tau2 known_info, v1 instruction.
	KnownInfo   string
	UserActions []GoldAction // gold actions with requestor user
	InitActions []GoldAction // initial_state user-side initialization_actions

	// What the probes derive from the blueprint, once per task however many
	// episodes share it (a ProbeTask is not for concurrent use).
	derived bool
	own     map[string]bool // user ids of the blueprint
	ids     []identifier    // knownIdentifiers(KnownInfo)
}

// derive fills what the probes derive from the task's texts, once; the
// texts must not change after the first probe ran on the task.
func (t *ProbeTask) derive() {
	if t.derived {
		return
	}
	t.own = map[string]bool{}
	for _, b := range t.Blueprint {
		for _, id := range userIDs(Normalize(b)) {
			t.own[id] = true
		}
	}
	t.ids = knownIdentifiers(t.KnownInfo)
	t.derived = true
}

// GoldAction is a gold or initialization action. CompareArgs nil means all
// arguments are compared.
type GoldAction struct {
	Name        string
	Arguments   json.RawMessage
	CompareArgs []string
}

// ProbeMessage is one message. Requestor is set on tool messages.
type ProbeMessage struct {
	TurnIdx   int
	Role      string // user | assistant | tool | system
	Content   string
	Calls     []ProbeCall
	Requestor string
	CallID    string // tool messages: the call answered

	norm    string // Normalize(Content), filled once by prepare
	hasNorm bool
}

// text returns the message's normalised content, computing it once.
func (m *ProbeMessage) text() string {
	if !m.hasNorm {
		m.norm, m.hasNorm = Normalize(m.Content), true
	}
	return m.norm
}

// ProbeCall is a tool call.
type ProbeCall struct {
	ID        string
	Name      string
	Arguments json.RawMessage
}

// Finding is one probe hit. TurnIdx nil means the episode as a whole.
type Finding struct {
	SimulationID string
	Probe        string
	TurnIdx      *int
	Evidence     string
	Detail       map[string]string
}

// ProbeResult is the probes' outcome for one episode.
type ProbeResult struct {
	Applies  map[string]bool // probe -> the episode counts in its denominator
	Findings []Finding
}

// RunProbes runs every probe (only, when non-empty, those named) on an
// episode.
func RunProbes(e *ProbeEpisode, only map[string]bool) ProbeResult {
	r := ProbeResult{Applies: map[string]bool{}}
	run := func(p string, applies bool, f func() []Finding) {
		if len(only) > 0 && !only[p] {
			return
		}
		r.Applies[p] = applies
		if applies {
			r.Findings = append(r.Findings, f()...)
		}
	}
	userTools := hasUserToolCall(e)
	run(ProbeP0, e.Task != nil, func() []Finding { return ProbeTaskMismatch(e) })
	ids := []identifier(nil)
	if e.Task != nil {
		e.Task.derive()
		ids = e.Task.ids
	}
	run(ProbeP1, len(ids) > 0, func() []Finding { return probeDisclosure(e, ids, false) })
	run(ProbeP1a, len(ids) > 0, func() []Finding { return probeDisclosure(e, ids, true) })
	run(ProbeP2, e.Task != nil && len(e.Task.UserActions) > 0, func() []Finding { return ProbeMissedWrite(e) })
	withDevice := userTools || e.Task != nil && (len(e.Task.UserActions) > 0 || len(e.Task.InitActions) > 0)
	run(ProbeP3, withDevice, func() []Finding { return ProbeDeviceState(e) })
	run(ProbeP4, true, func() []Finding { return ProbeStopOnConfirmation(e) })
	run(ProbeP5, withDevice, func() []Finding { return ProbeClaimedAction(e) })
	run(ProbeP6, userTools, func() []Finding { return ProbeProtocol(e) })
	return r
}

func hasUserToolCall(e *ProbeEpisode) bool {
	for _, m := range e.Messages {
		if m.Role == "user" && len(m.Calls) > 0 {
			return true
		}
	}
	return false
}

func turn(i int) *int { return &i }

// span returns up to about 80 characters of s around [lo, hi).
func span(s string, lo, hi int) string {
	const pad = 40
	a, b := lo-pad, hi+pad
	if a < 0 {
		a = 0
	}
	if b > len(s) {
		b = len(s)
	}
	for a > 0 && !utf8Start(s[a]) {
		a--
	}
	for b < len(s) && !utf8Start(s[b]) {
		b++
	}
	out := s[a:b]
	if a > 0 {
		out = "..." + out
	}
	if b < len(s) {
		out += "..."
	}
	return out
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

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
func ProbeTaskMismatch(e *ProbeEpisode) []Finding {
	if e.Task == nil {
		return nil
	}
	e.Task.derive()
	own := e.Task.own
	agentSaid := map[string]bool{}
	var first *Finding
	statesOwn := false
	for mi, m := range e.Messages {
		if m.Content == "" || m.Role != "assistant" && m.Role != "user" {
			continue
		}
		norm := e.Messages[mi].text()
		switch m.Role {
		case "assistant":
			for _, id := range userIDs(norm) {
				agentSaid[id] = true
			}
		case "user":
			for _, loc := range userIDLocs(norm) {
				id := norm[loc[0]:loc[1]]
				switch {
				case isPaymentID(id) || agentSaid[id]:
				case own[id]:
					statesOwn = true
				case first == nil:
					first = &Finding{SimulationID: e.SimulationID, Probe: ProbeP0, TurnIdx: turn(m.TurnIdx),
						Evidence: span(norm, loc[0], loc[1]), Detail: map[string]string{"user_id": id, "own": strings.Join(sortedSet(own), " ")}}
				}
			}
		}
	}
	if first == nil || statesOwn {
		return nil
	}
	return []Finding{*first}
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
	for _, m := range nameRE.FindAllStringSubmatch(text, -1) {
		add("name", m[1])
	}
	for _, m := range emailRE.FindAllString(text, -1) {
		add("email", m)
	}
	for _, m := range phoneRE.FindAllString(text, -1) {
		add("phone", m)
	}
	for _, m := range reservationRE.FindAllString(text, -1) {
		if strings.ContainsAny(m, "0123456789") && strings.ContainsAny(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") {
			add("reservation", m)
		}
	}
	for _, m := range orderRE.FindAllString(text, -1) {
		add("order", m)
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
func ProbeDisclosure(e *ProbeEpisode, firstOnly bool) []Finding {
	if e.Task == nil {
		return nil
	}
	e.Task.derive()
	return probeDisclosure(e, e.Task.ids, firstOnly)
}

// probeDisclosure is ProbeDisclosure with the task's known identifiers
// extracted already (RunProbes extracts them once for P1 and P1a).
func probeDisclosure(e *ProbeEpisode, ids []identifier, firstOnly bool) []Finding {
	asked := map[string]bool{}
	done := map[identifier]bool{}
	var out []Finding
	for mi, m := range e.Messages {
		if m.Content == "" || m.Role != "assistant" && m.Role != "user" {
			continue
		}
		norm := e.Messages[mi].text()
		if m.Role == "assistant" {
			identity := containsAny(norm, identityAsk)
			for k := range askWords {
				if !asked[k] && asksFor(norm, k, identity) {
					asked[k] = true
				}
			}
			continue
		}
		if m.Role != "user" {
			continue
		}
		var kinds, values []string
		first := -1
		for _, id := range ids {
			if done[id] || asked[id.kind] {
				continue
			}
			i := strings.Index(norm, id.value)
			if i < 0 || !wordBounded(norm, i, i+len(id.value)) {
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

// argsMatch reports whether a call's arguments equal a gold action's on the
// compared names (all of the gold's when CompareArgs is nil), as tau2's
// action check does.
func argsMatch(gold GoldAction, got json.RawMessage) bool {
	var g, c map[string]any
	_ = json.Unmarshal(gold.Arguments, &g)
	_ = json.Unmarshal(got, &c)
	keys := gold.CompareArgs
	if keys == nil {
		keys = make([]string, 0, len(g))
		for k := range g {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if !reflect.DeepEqual(g[k], c[k]) {
			return false
		}
	}
	return true
}

// ProbeMissedWrite (P2): a gold action with requestor user has no user tool
// call of the same name with equal compared arguments. One finding per
// missed action, about the episode as a whole.
func ProbeMissedWrite(e *ProbeEpisode) []Finding {
	if e.Task == nil {
		return nil
	}
	var out []Finding
	for _, a := range e.Task.UserActions {
		found := false
		for _, m := range e.Messages {
			if m.Role != "user" {
				continue
			}
			for _, c := range m.Calls {
				if c.Name == a.Name && argsMatch(a, c.Arguments) {
					found = true
				}
			}
		}
		if !found {
			args := string(a.Arguments)
			if args == "" || args == "null" {
				args = "{}"
			}
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP2,
				Evidence: "no user call " + a.Name + " " + args, Detail: map[string]string{"action": a.Name}})
		}
	}
	return out
}

// Device properties tracked by P3.
const (
	propAirplane    = "airplane mode"
	propData        = "mobile data"
	propRoaming     = "data roaming"
	propDataSaver   = "data saver"
	propWifiCalling = "wi-fi calling"
)

// initEffects maps user-side initialization actions to the state they set.
var initEffects = map[string][2]string{
	"turn_airplane_mode_on":    {propAirplane, "on"},
	"turn_airplane_mode_off":   {propAirplane, "off"},
	"turn_data_off":            {propData, "off"},
	"turn_data_on":             {propData, "on"},
	"turn_roaming_off":         {propRoaming, "off"},
	"turn_roaming_on":          {propRoaming, "on"},
	"turn_data_saver_mode_on":  {propDataSaver, "on"},
	"turn_data_saver_mode_off": {propDataSaver, "off"},
}

// resultRE reads device state from user tool results (tau2 telecom):
// "Airplane Mode is now ON.", "Airplane Mode: OFF", "Mobile Data Enabled:
// Yes", "Data Roaming is now ON.", "Data Saver mode is OFF.", "Wi-Fi Calling
// is currently turned ON.".
var resultRE = regexp.MustCompile(`(airplane mode|mobile data|data roaming|data saver(?: mode)?|wi-fi calling)(?: enabled)?(?: is)?(?: now| currently)?(?: turned)?:? (on|off|yes|no)\b`)

func observe(state map[string]string, norm string) {
	for _, line := range strings.Split(norm, "\n") {
		if strings.HasPrefix(line, "status bar:") {
			state[propAirplane] = onOff(strings.Contains(line, "airplane mode"))
			state[propDataSaver] = onOff(strings.Contains(line, "data saver"))
			continue
		}
		for _, m := range resultRE.FindAllStringSubmatch(line, -1) {
			state[propKey(m[1])] = map[string]string{"on": "on", "yes": "on", "off": "off", "no": "off"}[m[2]]
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func propKey(s string) string {
	switch {
	case strings.HasPrefix(s, "data saver"):
		return propDataSaver
	case s == "roaming":
		return propRoaming
	}
	return s
}

// assertRE finds a user's assertion of a device state in one clause:
// "<property> is [currently|now|still|already] [not] [turned|switched] on|off|enabled|disabled".
var assertRE = regexp.MustCompile(`(airplane mode|mobile data|data roaming|roaming|data saver(?: mode)?|wi-fi calling) (?:is|was|seems to be|appears to be|shows as|shows)(?: (?:currently|now|still|already|definitely|also|actually))*( not)?(?: (?:turned|switched|set to))? (on|off|enabled|disabled|active|inactive)\b`)

// hypothetical marks a clause that asks, plans or supposes rather than asserts.
var hypothetical = regexp.MustCompile(`\b(?:if|whether|should|could|would|can you|want|try|let me|make sure|need to|to turn|how|once|when|after|until|unless|ensure|ensuring|check|checking|confirm|verify)\b`)

// negatedRE marks a clause whose assertion is negated before it ("it
// doesn't indicate that airplane mode is on").
var negatedRE = regexp.MustCompile(`(?:n't|\bnot|\bnever) (?:indicate|show|say|seem|think|look like|appear|believe|mean)s?(?: that)?(?: the)? $`)

// clauseRE splits a message into clauses at sentence ends, semicolons,
// dashes and line breaks, keeping each terminator.
var clauseRE = regexp.MustCompile(`[^.!?;\n\x{2014}]+[.!?;\n\x{2014}]?`)

// ProbeDeviceState (P3): the user asserts a device state (airplane mode,
// mobile data, roaming, data saver, Wi-Fi calling) that differs from the
// true state at that point: the user-side initialization actions, then what
// each earlier user tool result showed. Negation ("is not on") flips the
// assertion; questions and hypotheticals are not assertions; a property
// whose true state is unknown is not judged.
func ProbeDeviceState(e *ProbeEpisode) []Finding {
	state := map[string]string{}
	if e.Task != nil {
		for _, a := range e.Task.InitActions {
			if eff, ok := initEffects[a.Name]; ok {
				state[eff[0]] = eff[1]
			}
			if a.Name == "set_wifi_calling" {
				var args struct {
					Enabled *bool `json:"enabled"`
				}
				if json.Unmarshal(a.Arguments, &args) == nil && args.Enabled != nil {
					state[propWifiCalling] = onOff(*args.Enabled)
				}
			}
		}
	}
	var out []Finding
	for mi, m := range e.Messages {
		if m.Role == "tool" && m.Requestor == "user" {
			observe(state, strings.ToLower(m.Content))
			continue
		}
		if m.Role != "user" || m.Content == "" {
			continue
		}
		norm := e.Messages[mi].text()
		for _, loc := range clauseRE.FindAllStringIndex(norm, -1) {
			clause := norm[loc[0]:loc[1]]
			if strings.HasSuffix(clause, "?") || hypothetical.MatchString(clause) {
				continue
			}
			for _, a := range assertRE.FindAllStringSubmatchIndex(clause, -1) {
				prop := propKey(clause[a[2]:a[3]])
				said := map[string]string{"on": "on", "enabled": "on", "active": "on", "off": "off", "disabled": "off", "inactive": "off"}[clause[a[6]:a[7]]]
				if a[4] >= 0 {
					said = map[string]string{"on": "off", "off": "on"}[said]
				}
				if negatedRE.MatchString(clause[:a[0]]) {
					said = map[string]string{"on": "off", "off": "on"}[said]
				}
				if truth, ok := state[prop]; ok && truth != said {
					out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP3, TurnIdx: turn(m.TurnIdx),
						Evidence: span(norm, loc[0]+a[0], loc[0]+a[1]),
						Detail:   map[string]string{"property": prop, "said": said, "true": truth}})
				}
			}
		}
	}
	return out
}

var (
	confirmAsk = regexp.MustCompile(`\b(?:confirm|proceed|shall i|should i|would you like me to|do you want me to|go ahead|yes/no|\(yes\)|yes or no)\b`)
	affirmRE   = regexp.MustCompile(`^(?:yes|yeah|yep|sure|ok|okay|confirm|confirmed|i confirm|please proceed|proceed|go ahead|please go ahead|please do|that's correct|correct|sounds good)\b`)
)

// ProbeStopOnConfirmation (P4): the last user message holds ###STOP### and
// affirms ("yes", "please proceed", "I confirm", ...) a confirmation the
// agent asked for in its message just before (a question with "confirm",
// "proceed", "shall I", "would you like me to", ...): the user ended the
// conversation before the agent could act on the answer.
func ProbeStopOnConfirmation(e *ProbeEpisode) []Finding {
	last := -1
	for i := len(e.Messages) - 1; i >= 0; i-- {
		if e.Messages[i].Role == "user" {
			last = i
			break
		}
	}
	if last < 0 || !strings.Contains(e.Messages[last].Content, "###STOP###") {
		return nil
	}
	prev := -1
	for i := last - 1; i >= 0; i-- {
		if e.Messages[i].Role == "assistant" && e.Messages[i].Content != "" {
			prev = i
			break
		}
		if e.Messages[i].Role == "user" {
			return nil
		}
	}
	if prev < 0 {
		return nil
	}
	ask := e.Messages[prev].text()
	if !strings.Contains(ask, "?") || !confirmAsk.MatchString(ask) {
		return nil
	}
	text := Normalize(strings.ReplaceAll(e.Messages[last].Content, "###STOP###", ""))
	text = strings.TrimLeft(text, " \"'*-")
	if !affirmRE.MatchString(text) {
		return nil
	}
	return []Finding{{SimulationID: e.SimulationID, Probe: ProbeP4, TurnIdx: turn(e.Messages[last].TurnIdx),
		Evidence: span(text, 0, 0), Detail: map[string]string{"asked": span(ask, len(ask), len(ask))}}}
}

// claimRE finds a first-person claim of a device action.
var claimRE = regexp.MustCompile(`\bi(?:'ve| have)?(?: just| now| already| also| then)? (turned|switched|toggled|enabled|disabled|restarted|rebooted|reset|reseated|removed|reinserted|re-inserted|changed|set) ([^.!?;\n]*)`)

// claimTool maps a claim to the user tool that would have done it, or "".
func claimTool(verb, rest string) string {
	switch {
	case verb == "restarted" || verb == "rebooted":
		return "reboot_device"
	case strings.Contains(rest, "sim"):
		return "reseat_sim_card"
	case strings.Contains(rest, "airplane"):
		return "toggle_airplane_mode"
	case strings.Contains(rest, "data saver"):
		return "toggle_data_saver_mode"
	case strings.Contains(rest, "roaming"):
		return "toggle_roaming"
	case strings.Contains(rest, "wi-fi calling") || strings.Contains(rest, "wifi calling"):
		return "toggle_wifi_calling"
	case strings.Contains(rest, "apn"):
		return "reset_apn_settings"
	case strings.Contains(rest, "network mode") || strings.Contains(rest, "network preference") || strings.Contains(rest, "preferred network"):
		return "set_network_mode_preference"
	case strings.Contains(rest, "mobile data") || strings.HasPrefix(rest, "data ") || strings.HasPrefix(rest, "off data") || strings.HasPrefix(rest, "on data") || strings.HasPrefix(rest, "off mobile") || strings.HasPrefix(rest, "on mobile") || strings.HasPrefix(rest, "on the data") || strings.HasPrefix(rest, "off the data"):
		return "toggle_data"
	case verb == "restarted":
		return "reboot_device"
	}
	return ""
}

// apnTools are the calls that satisfy an APN claim.
var equivalentTools = map[string][]string{
	"reset_apn_settings": {"reset_apn_settings", "set_apn_settings"},
}

// ProbeClaimedAction (P5): a user message says the user did a device
// action ("I've turned off airplane mode", "I restarted my phone") and no
// earlier user tool call has the tool that does it.
func ProbeClaimedAction(e *ProbeEpisode) []Finding {
	called := map[string]bool{}
	var out []Finding
	for mi, m := range e.Messages {
		if m.Role != "user" {
			continue
		}
		if m.Content != "" {
			norm := e.Messages[mi].text()
			for _, c := range claimRE.FindAllStringSubmatchIndex(norm, -1) {
				tool := claimTool(norm[c[2]:c[3]], norm[c[4]:c[5]])
				if tool == "" || notAClaim(norm, c[0], c[1]) {
					continue
				}
				ok := called[tool]
				for _, t := range equivalentTools[tool] {
					ok = ok || called[t]
				}
				if !ok {
					out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP5, TurnIdx: turn(m.TurnIdx),
						Evidence: span(norm, c[0], c[1]), Detail: map[string]string{"tool": tool}})
				}
			}
		}
		for _, c := range m.Calls {
			called[c.Name] = true
		}
	}
	return out
}

// modalRE marks "i <verb>" that follows a modal or conjunction ("should i
// reset", "if i restarted"): a question or supposition, not a claim.
var modalRE = regexp.MustCompile(`\b(?:should|can|could|would|shall|will|do|did|may|might|must|if|when|once|after|before|until|whether|so that|unless)\s*$`)

// notAClaim reports whether the claim at [lo, hi) of norm is in a question
// or follows a modal.
func notAClaim(norm string, lo, hi int) bool {
	if modalRE.MatchString(norm[:lo]) {
		return true
	}
	end := strings.IndexAny(norm[hi:], ".!?\n")
	return end >= 0 && norm[hi+end] == '?'
}

// ProbeProtocol (P6): a user message with more than one tool call, or with
// text and a tool call together.
func ProbeProtocol(e *ProbeEpisode) []Finding {
	var out []Finding
	for mi, m := range e.Messages {
		if m.Role != "user" || len(m.Calls) == 0 {
			continue
		}
		names := make([]string, len(m.Calls))
		for i, c := range m.Calls {
			names[i] = c.Name
		}
		switch {
		case len(m.Calls) > 1:
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP6, TurnIdx: turn(m.TurnIdx),
				Evidence: "tool calls " + strings.Join(names, ", "), Detail: map[string]string{"violation": "several calls"}})
		case strings.TrimSpace(m.Content) != "":
			n := e.Messages[mi].text()
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP6, TurnIdx: turn(m.TurnIdx),
				Evidence: span(n, 0, 0) + " + call " + names[0], Detail: map[string]string{"violation": "text and call"}})
		}
	}
	return out
}
