package probes

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
)

// Judge-free probes of SPEC 6.3: deterministic checks that catch a user
// simulator breaking its contract from the trajectory alone. Each works on
// a Episode (plain data loaded by queries) and returns findings with the
// turn and the evidence span; Applies says which episodes a probe's rate is
// taken over.

// Probe is one judge-free probe. Each lives in its own file (probe_p0.go,
// ...) and registers itself; the probe list, its descriptions, the command's
// usage, the review codes and the schema's accepted names all come from the
// registry (Names, ByName).
type Probe struct {
	Name        string // "P0", "P1a", ...
	Description string // a line saying what the probe flags
	// Applies says whether an episode counts in the probe's denominator;
	// Find runs only on such episodes.
	Applies func(e *View) bool
	// Find returns the probe's findings on one episode, in message order.
	Find func(e *View) []Finding
	// ReviewCode is the error code (SPEC 7, review taxonomy) a finding of
	// the probe proposes to a reviewer.
	ReviewCode string
}

// registry holds the registered probes in report order (probeLess).
var registry []Probe

// register adds p to the registry, in report order; each probe file calls it
// from init. A name registered twice is a programming error.
func register(p Probe) {
	for _, q := range registry {
		if q.Name == p.Name {
			panic("probes: probe " + p.Name + " registered twice")
		}
	}
	i := sort.Search(len(registry), func(i int) bool { return probeLess(p.Name, registry[i].Name) })
	registry = slices.Insert(registry, i, p)
}

// probeLess orders probe names by their number, then their suffix:
// P0 < P1 < P1a < P2 < ... < P10.
func probeLess(a, b string) bool {
	na, sa := probeNumber(a)
	nb, sb := probeNumber(b)
	if na != nb {
		return na < nb
	}
	return sa < sb
}

func probeNumber(name string) (int, string) {
	n, i := 0, 1
	for i < len(name) && isDigit(name[i]) {
		n = 10*n + int(name[i]-'0')
		i++
	}
	return n, name[i:]
}

// Names returns every probe name in report order.
func Names() []string {
	out := make([]string, len(registry))
	for i, p := range registry {
		out[i] = p.Name
	}
	return out
}

// ByName returns the probe named name.
func ByName(name string) (Probe, bool) {
	for _, p := range registry {
		if p.Name == name {
			return p, true
		}
	}
	return Probe{}, false
}

// Range is the names of the probes for a usage line: "P0-P6".
func Range() string { return registry[0].Name + "-" + registry[len(registry)-1].Name }

// View is what the probes read of one episode: made from a parsed
// ub.Episode (probeEpisodeOf) or from its stored rows (probeMessages), so
// that both give the same findings.
type View struct {
	SimulationID string
	Task         *ViewTask // nil: the task is unknown
	Messages     []ViewMessage
	// NoUser marks an episode without a simulated user (tau2's solo
	// mode): the agent performs the user's actions (P2 counts its calls).
	NoUser bool
	// NoRun marks a placeholder of a simulation that never ran (tau2's
	// termination_reason infrastructure_error): no probe applies to it.
	NoRun bool
}

// ViewTask is the user's blueprint of a task and its user-side gold facts.
type ViewTask struct {
	// Blueprint holds the texts the simulator was given (reason_for_call,
	// known_info, unknown_info, task_instructions, persona; v1 instruction;
	// v1 user_id), in that order.
	Blueprint []string
	// KnownInfo is the text of disclosable facts: tau2 known_info, v1 instruction.
	KnownInfo   string
	UserActions []GoldAction // gold actions with requestor user
	InitActions []GoldAction // initial_state user-side initialization_actions

	// What the probes derive from the blueprint, once per task however many
	// episodes share it (a Task is not for concurrent use).
	derived bool
	own     map[string]bool // user ids of the blueprint
	ids     []identifier    // knownIdentifiers(KnownInfo)
}

// derive fills what the probes derive from the task's texts, once; the
// texts must not change after the first probe ran on the task.
func (t *ViewTask) derive() {
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

// ViewMessage is one message. Requestor is set on tool messages.
type ViewMessage struct {
	TurnIdx   int
	Role      string // user | assistant | tool | system
	Content   string
	Calls     []ViewCall
	Requestor string
	CallID    string // tool messages: the call answered

	norm    string // Normalize(Content), filled once by prepare
	hasNorm bool
}

// text returns the message's normalised content, computing it once.
func (m *ViewMessage) text() string {
	if !m.hasNorm {
		m.norm, m.hasNorm = Normalize(m.Content), true
	}
	return m.norm
}

// ViewCall is a tool call.
type ViewCall struct {
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

// Result is the probes' outcome for one episode.
type Result struct {
	Applies  map[string]bool // probe -> the episode counts in its denominator
	Findings []Finding
}

// Run runs every probe (only, when non-empty, those named) on an
// episode.
func Run(e *View, only map[string]bool) Result {
	r := Result{Applies: map[string]bool{}}
	for _, p := range registry {
		if len(only) > 0 && !only[p.Name] {
			continue
		}
		applies := !e.NoRun && p.Applies(e)
		r.Applies[p.Name] = applies
		if applies {
			r.Findings = append(r.Findings, p.Find(e)...)
		}
	}
	return r
}

// taskIdentifiers is the known_info identifiers of e's task (nil without a
// task), derived once per task.
func taskIdentifiers(e *View) []identifier {
	if e.Task == nil {
		return nil
	}
	e.Task.derive()
	return e.Task.ids
}

// withDevice reports whether an episode has a user-side device: the user
// made a tool call, or its task has user actions or user-side
// initialization actions (P3 and P5 apply to it).
func withDevice(e *View) bool {
	return hasUserToolCall(e) || e.Task != nil && (len(e.Task.UserActions) > 0 || len(e.Task.InitActions) > 0)
}

// EndTokens are the tokens a tau2 user simulator ends the conversation
// with: ###STOP### (the task is done), ###TRANSFER### (the agent handed the
// user to a human) and ###OUT-OF-SCOPE### (the scenario does not say how to
// go on).
var EndTokens = []string{"###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###"}

// endToken returns the first end token in content, or "".
func endToken(content string) string {
	for _, t := range EndTokens {
		if strings.Contains(content, t) {
			return t
		}
	}
	return ""
}

// withoutEndTokens is content with every end token removed.
func withoutEndTokens(content string) string {
	for _, t := range EndTokens {
		content = strings.ReplaceAll(content, t, "")
	}
	return content
}

// lastUserMessage is the index of e's last user message, or -1.
func lastUserMessage(e *View) int {
	for i := len(e.Messages) - 1; i >= 0; i-- {
		if e.Messages[i].Role == "user" {
			return i
		}
	}
	return -1
}

func hasUserToolCall(e *View) bool {
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
