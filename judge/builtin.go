package judge

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// BuiltinName is the name of the built-in judge (ub judge --judge builtin).
const BuiltinName = "builtin"

//go:generate go run ./internal/trainweights -labels ../../shared/corpus/labels -out builtin_weights.json
//go:generate go run ./internal/trainweights -labels ../../shared/corpus/labels -measure -out builtin_measure.json

//go:embed builtin_weights.json
var builtinWeights []byte

// Result is one judgement of a developer message.
type Result struct {
	// Move is the label: one of the four moves or Other.
	Move Move `json:"label"`
	// Fine is the 7-way label when the judge predicts one (it then maps to
	// Move); zero otherwise.
	Fine Fine `json:"fine,omitempty"`
	// Score is the classifier's probability for Move, in [0, 1]. When a
	// rule overrode the classifier it can be low: the rule, not the score,
	// decided.
	Score float64 `json:"score"`
	// Reason names, briefly, what decided the label: a rule, or the
	// strongest cues and words.
	Reason string `json:"reason"`
	// Rule is the override rule that decided, "" when the classifier did.
	Rule string `json:"rule,omitempty"`
	// Confidence is the calibrated probability that Move is right (see
	// Calibration); 0 when the judge has no calibration.
	Confidence float64 `json:"confidence"`
}

// Builtin is the offline move judge. A multinomial logistic regression over
// hand-written multilingual cues (fault words, pasted-log signatures,
// persistence, pushback, request and question openings, approvals; see
// lexicon.go and features.go) and word n-grams gives each 7-way label a
// probability; a few rules of the labelling guide then override it where the
// guide decides outright (fault first; see rules). It was trained on the
// tune part of the labels corpus (Split, Train, BuildWeights), needs no
// network and is safe for concurrent use.
type Builtin struct {
	model   *Model
	moves   []Move // the move of each class of model
	version string
}

// NewBuiltin returns the built-in judge with the weights shipped in the
// repository (builtin_weights.json, embedded).
func NewBuiltin() (*Builtin, error) {
	var m Model
	if err := json.Unmarshal(builtinWeights, &m); err != nil {
		return nil, fmt.Errorf("judge: embedded builtin_weights.json: %w", err)
	}
	b := FromModel(&m)
	sum := sha256.Sum256(builtinWeights)
	b.version = "builtin/1+" + hex.EncodeToString(sum[:6])
	return b, nil
}

// FromModel returns a judge that uses model m, for training and cross
// validation.
func FromModel(m *Model) *Builtin {
	return &Builtin{model: m, moves: m.moveOfClass(), version: "builtin/1+unshipped"}
}

// Version identifies the judge and its weights, for storing beside labels:
// "builtin/1+" and the first 12 hex digits of the weights file's SHA-256.
func (b *Builtin) Version() string { return b.version }

// Label judges one developer message. prevAgent is the end of the agent's
// previous reply, "" if there was none; it helps with short answers to an
// offer ("yes" after "shall I?"). Any text is valid input.
func (b *Builtin) Label(message, prevAgent string) Result {
	f, cues := extract(message, prevAgent, b.model.Params.features())
	p := b.model.scores(f)
	var mp [NumMoves + 1]float64
	for c, v := range p {
		mp[b.moves[c]] += v
	}
	best := Other
	for _, mv := range Moves() {
		if mp[mv] > mp[best] {
			best = mv
		}
	}
	rule, ruleName := "", ""
	for _, rl := range rules {
		if !contains(b.model.Params.NoRules, rl.name) && rl.fires(cues) {
			rule, ruleName = rl.name, rl.name
			if rl.move != best {
				rule += "; classifier said " + best.String()
			}
			best = rl.move
			break
		}
	}
	r := Result{Move: best, Score: mp[best], Rule: ruleName}
	if b.model.Params.Fine {
		bc := -1
		for c, v := range p {
			if b.moves[c] == best && (bc < 0 || v > p[bc]) {
				bc = c
			}
		}
		r.Fine, _ = ParseFine(b.model.Classes[bc])
	}
	if rule != "" {
		r.Reason = "rule " + rule
	} else {
		r.Reason = b.reason(f, best)
	}
	if b.model.Calibration != nil {
		r.Confidence = b.model.Calibration.Confidence(r)
	}
	return r
}

// reason lists the strongest evidence for move mv: the features whose value
// times (mean weight of mv's classes - mean weight of the other classes) is
// largest, at most four.
func (b *Builtin) reason(f map[string]float64, mv Move) string {
	type ev struct {
		name string
		v    float64
	}
	var evs []ev
	for _, k := range sortedKeys(f) {
		w, ok := b.model.Weights[featureHash(k)]
		if !ok {
			continue
		}
		var in, out, nin, nout float64
		for c, x := range w {
			if b.moves[c] == mv {
				in, nin = in+x, nin+1
			} else {
				out, nout = out+x, nout+1
			}
		}
		if nin == 0 || nout == 0 {
			continue
		}
		if s := (in/nin - out/nout) * f[k]; s > 0.1 {
			evs = append(evs, ev{describe(k), s})
		}
	}
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].v > evs[j].v })
	var names []string
	seen := map[string]bool{}
	for _, e := range evs {
		if !seen[e.name] && len(names) < 4 {
			seen[e.name] = true
			names = append(names, e.name)
		}
	}
	if len(names) == 0 {
		return "no strong cue; the prior"
	}
	return strings.Join(names, ", ")
}

// describe turns a feature key into a short human-readable cue.
func describe(k string) string {
	switch {
	case strings.HasPrefix(k, "q:"):
		return "cue " + k[2:]
	case strings.HasPrefix(k, "w:"), strings.HasPrefix(k, "b:"):
		return fmt.Sprintf("%q", k[2:])
	case strings.HasPrefix(k, "l:"):
		s := k[2:]
		if i := strings.IndexByte(s, ':'); i >= 0 {
			pos, w := s[:i], s[i+1:]
			if strings.HasPrefix(pos, "z") {
				return fmt.Sprintf("ends %q", w)
			}
			return fmt.Sprintf("opens %q", w)
		}
		return s
	case strings.HasPrefix(k, "c:"):
		return fmt.Sprintf("~%q", strings.Trim(k[2:], "<>"))
	}
	return k
}

// A rule overrides the classifier where the labelling guide decides
// outright. Rules are tried in order; the first that fires wins.
type rule struct {
	name  string
	move  Move
	fires func(cues map[string]float64) bool
}

// rules are the overrides, in order. The fault-first rules come before
// approval so that "thanks, but it still crashes" stays critical; the aider
// help question comes first because its pasted documentation may mention
// errors. On the tune part the fault and approval rules change no label (the
// classifier already agrees); they guard messages unlike the training ones.
// The noise and help rules each add about 0.005 to the leave-one-developer-
// out kappa (internal/trainweights -cv, params {"no_rules": [...]}).
var rules = []rule{
	// aider's /help sends "# Question: ..." followed by its documentation:
	// a request for information.
	{"help_question", Inquiry, func(q map[string]float64) bool {
		return q["q_header"] > 0
	}},
	// Fault first: a pasted log or stack trace (a signature code does not
	// have: a stack frame, a compiler diagnostic, an HTTP failure) with at
	// most one line of the developer's own words shows a fault, whatever else
	// it does.
	{"log_only", Critical, func(q map[string]float64) bool {
		return q["strong_log_noprose"] > 0
	}},
	// Fault first: the developer reports getting an error, or says a fault
	// persists ("it still crashes", "sigue sin funcionar").
	{"fault_report", Critical, func(q map[string]float64) bool {
		return q["exp_fault"] > 0 || q["still_any"] > 0
	}},
	// Permission to carry out the agent's proposal, nothing new: "go ahead
	// and make the changes" (the guide's rule 4).
	{"permit", Approve, func(q map[string]float64) bool {
		return q["permit"] > 0
	}},
	// Nothing but approval words ("ok", "continue", "perfect, thanks").
	{"approve_only", Approve, func(q map[string]float64) bool {
		return q["approve_all"] > 0 && q["qmark"] == 0
	}},
	// Nothing at all, or noise: a blank submission, aider commands, "test",
	// a bare path.
	{"noise", Other, func(q map[string]float64) bool {
		return q["empty"] > 0 || q["noise"] > 0 || q["bare_path"] > 0 || q["commands_only"] > 0
	}},
}

// RuleNames returns the names of the override rules, in order, for
// Params.NoRules.
func RuleNames() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
