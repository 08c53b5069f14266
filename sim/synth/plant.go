package synth

import (
	"math"

	"github.com/ub-bench/ub/queries"
)

// The moves of SPEC section 4, in the sorted order analysis uses.
const (
	moveApprove   = "approve"
	moveCritical  = "critical"
	moveDirective = "directive"
	moveInquiry   = "inquiry"
)

// Moves are the four moves every synthetic label is one of, sorted.
var Moves = [4]string{moveApprove, moveCritical, moveDirective, moveInquiry}

// MoveMix is the population mean of the developers' move mixes, in [Moves]
// order: seed 000's shares (approve 12%, critical 28%, directive 52%,
// inquiry 8%). Each developer's own mix is drawn from a Dirichlet
// distribution with mean MoveMix and concentration [MixConcentration].
var MoveMix = [4]float64{0.12, 0.28, 0.52, 0.08}

// MixConcentration is the Dirichlet concentration of a developer's move mix
// around [MoveMix]. With alpha = 20 the expected collision probability of a
// mix is (alpha * sum mu^2 + 1) / (alpha + 1) = 0.400, and the empirical mix
// of 24 moments adds about 0.025: a chance line near seed 000's 0.419.
const MixConcentration = 20

// The prompt settings of the study.
const (
	AnchorN = 14 // the leaderboard's live window (SPEC section 3 default)
	AnchorK = 0  // no history on the leaderboard
)

// ContextSweepN are the live windows of the context sweep (SPEC section 5):
// 1..10, plus the anchor 14.
var ContextSweepN = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14}

// HistorySweepK are the history lengths of the history sweep at N = 14.
var HistorySweepK = []int{0, 2, 4, 8, 16, 32, 64}

// SubstitutionK are the history lengths of the substitution test at N = 1.
var SubstitutionK = []int{0, 8, 64}

// SurfaceN and SurfaceK span the N x K surface.
var (
	SurfaceN = []int{1, 2, 4, 8, 14}
	SurfaceK = []int{0, 4, 16, 64}
)

// PlantedPeak is the live window at which the planted context curve peaks.
const PlantedPeak = 8

// ContextCurve is the planted context effect g(n) of a live window of n
// turns, in accuracy points: rising with ln n from g(1) = -0.06 to the peak
// g(8) = +0.08, then falling linearly to g(14) = 0. A moment with P prior
// turns shown the last N turns sees min(N, P) of them, and its hit
// probability moves by g(min(N, P)) - g(min(14, P)): nothing at the anchor
// N = 14, so the sweep's anchor is the leaderboard run. On the
// constant-dose subset (P >= 10) the planted differences are N = 8 minus
// N = 14: +0.08, and N = 8 minus N = 1: +0.14 (seed 000: +0.072 and +0.12).
func ContextCurve(n int) float64 {
	switch {
	case n <= 1:
		return -0.06
	case n <= PlantedPeak:
		return -0.06 + 0.14*math.Log(float64(n))/math.Log(PlantedPeak)
	case n < AnchorN:
		return 0.08 * float64(AnchorN-n) / float64(AnchorN-PlantedPeak)
	}
	return 0
}

// HistoryEffect is the planted effect of K history messages: none. The
// history axis is flat (seed 000: "cross-session history is flat"), at
// every live window, so the substitution test and every surface row are
// planted nulls.
func HistoryEffect(k int) float64 { return 0 }

// MoveTilt is how a simulator's hit probability depends on the real move:
// delta_m is added to the hit probability of a moment whose real move is m.
// The directive entry is derived so that sum_m MoveMix[m] * delta_m = 0:
// the tilt shapes the per-move breakdown without moving the planted
// accuracy, which stays the population mean of per-developer accuracy.
type MoveTilt struct {
	Approve, Critical, Inquiry float64
}

// Deltas returns delta_m in [Moves] order.
func (t MoveTilt) Deltas() [4]float64 {
	d := [4]float64{t.Approve, t.Critical, 0, t.Inquiry}
	var s float64
	for i, m := range MoveMix {
		if i != 2 {
			s += m * d[i]
		}
	}
	d[2] = -s / MoveMix[2]
	return d
}

// MissWeights are the relative chances of each wrong move when a simulator
// misses, in [Moves] order (the real move's own weight is ignored). A large
// inquiry weight plants the "helpful assistant" over-asking of seed 000:
// spurious inquiries the real developer never makes.
type MissWeights [4]float64

// Behaviour is how one simulator acts in one condition.
type Behaviour struct {
	// Accuracy is the planted macro accuracy at the anchor: the population
	// mean, over developers, of the per-developer expected accuracy.
	Accuracy float64
	Tilt     MoveTilt
	Miss     MissWeights
	// Words is the planted mean length of a generation, in words.
	Words float64
}

// Simulator is one planted simulator.
type Simulator struct {
	Name    string
	Model   string
	Effort  string // reasoning_effort parameter; "" for none
	PriceIn float64
	// PriceOut is per million output tokens, as PriceIn is per million input tokens.
	PriceOut float64
	// Reasoning is the planted hidden reasoning, in output tokens per reply.
	Reasoning int
	// Conditions maps a condition to its behaviour; the simulator is
	// generated in exactly these.
	Conditions map[string]Behaviour
}

// Lift is the planted profile effect: accuracy with profile minus without.
func (s Simulator) Lift() float64 {
	return s.Conditions[queries.CondProfile].Accuracy - s.Conditions[queries.CondNoProfile].Accuracy
}

// Tilts and miss weights shared by the planted simulators.
var (
	tiltBase    = MoveTilt{Approve: -0.15, Critical: -0.15, Inquiry: -0.28}
	tiltProfile = MoveTilt{Approve: -0.10, Critical: -0.12, Inquiry: -0.30}
	tiltTerse   = MoveTilt{Approve: -0.10, Critical: -0.25, Inquiry: -0.28}

	missBase    = MissWeights{1, 1, 2, 1}
	missAsker   = MissWeights{1, 1, 2, 4}     // over-asks without a profile
	missProfile = MissWeights{1, 1.2, 2, 0.5} // the profile drains the reflex
	missTerse   = MissWeights{1.5, 0.3, 3, 0.2}
)

func general(acc, words float64) Behaviour {
	return Behaviour{Accuracy: acc, Tilt: tiltBase, Miss: missBase, Words: words}
}

func asker(acc, words float64) Behaviour {
	return Behaviour{Accuracy: acc, Tilt: tiltBase, Miss: missAsker, Words: words}
}

func withProfile(acc, words float64) Behaviour {
	return Behaviour{Accuracy: acc, Tilt: tiltProfile, Miss: missProfile, Words: words}
}

// mild softens the inquiry tilt of the context simulator, whose hit
// probability the context curve moves by up to -0.14 at N = 1.
func mild(b Behaviour) Behaviour {
	b.Tilt.Inquiry = -0.20
	return b
}

func terse(acc float64) Behaviour {
	return Behaviour{Accuracy: acc, Tilt: tiltTerse, Miss: missTerse, Words: 8}
}

// RealWords is the planted mean length of a real developer message, in
// words: terser than every simulator without a profile.
const RealWords = 11

// ContextSimulator is the simulator of the context and history sweeps and
// the surface (seed 000 uses gemini-3.5-flash, without profile).
const ContextSimulator = "gemini-3.5-flash"

// Planted returns the planted simulators, sorted by name. The values follow
// seed 000: no-profile accuracies from GPT-5.5's 0.546 down to OSim-4B's
// 0.400 (below the chance line), profile lifts from -0.016 (GPT-5.5) to
// +0.099 (GLM-5.2), DeepSeek-V4-Pro at low and high reasoning effort
// (+0.017 with profile, +0.001 without), the terse-only prefix for GLM-5.2
// (a quarter of its profile gain) and GPT-5.5 (it hurts), and every
// simulator terser with a profile.
func Planted() []Simulator {
	return []Simulator{
		{Name: "claude-opus-4.8", Model: "anthropic/claude-opus-4.8", Effort: "low", PriceIn: 5, PriceOut: 25, Reasoning: 180,
			Conditions: map[string]Behaviour{queries.CondNoProfile: general(0.520, 30), queries.CondProfile: withProfile(0.528, 22)}},
		{Name: "deepseek-v4-pro", Model: "deepseek/deepseek-v4-pro", Effort: "low", PriceIn: 0.5, PriceOut: 2, Reasoning: 230,
			Conditions: map[string]Behaviour{queries.CondNoProfile: general(0.486, 27), queries.CondProfile: withProfile(0.509, 15)}},
		{Name: "deepseek-v4-pro-max", Model: "deepseek/deepseek-v4-pro", Effort: "high", PriceIn: 0.5, PriceOut: 2, Reasoning: 410,
			Conditions: map[string]Behaviour{queries.CondNoProfile: general(0.487, 25), queries.CondProfile: withProfile(0.526, 14)}},
		{Name: "gemini-3.5-flash", Model: "google/gemini-3.5-flash", Effort: "low", PriceIn: 0.3, PriceOut: 2.5, Reasoning: 150,
			Conditions: map[string]Behaviour{queries.CondNoProfile: mild(general(0.505, 32)), queries.CondProfile: mild(withProfile(0.517, 16))}},
		{Name: "glm-5.2", Model: "z-ai/glm-5.2", Effort: "low", PriceIn: 0.6, PriceOut: 2.2, Reasoning: 200,
			Conditions: map[string]Behaviour{queries.CondNoProfile: asker(0.460, 52), queries.CondProfile: withProfile(0.559, 18), queries.CondTerse: terse(0.485)}},
		{Name: "gpt-5.5", Model: "openai/gpt-5.5", Effort: "low", PriceIn: 1.25, PriceOut: 10, Reasoning: 160,
			Conditions: map[string]Behaviour{queries.CondNoProfile: general(0.546, 36), queries.CondProfile: withProfile(0.530, 17), queries.CondTerse: terse(0.521)}},
		{Name: "osim-4b", Model: "osim/osim-4b", PriceIn: 0.05, PriceOut: 0.1,
			Conditions: map[string]Behaviour{queries.CondNoProfile: asker(0.400, 30), queries.CondProfile: withProfile(0.473, 14)}},
		{Name: "osim-8b", Model: "osim/osim-8b", PriceIn: 0.08, PriceOut: 0.15,
			Conditions: map[string]Behaviour{queries.CondNoProfile: asker(0.430, 34), queries.CondProfile: withProfile(0.479, 16)}},
	}
}

// Spread of the planted per-developer effects: a developer's ability
// offset u_d is uniform on +/-DeveloperSpread (shared by every simulator
// and condition), and each (simulator, condition, developer) adds v uniform
// on +/-SimulatorSpread. Both have mean zero, so the planted accuracy stays
// the population mean; with the tilts above no hit probability leaves
// [0, 1] (TestNoClipping), so nothing biases it.
const (
	DeveloperSpread = 0.06
	SimulatorSpread = 0.03
)
