package synth

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/graph"
	"github.com/ub-bench/ub/queries"
)

// The shape of one block of the study (seed 000, at scale 1): about 190
// developers in about 160 components, the largest 16 developers across 3
// repositories, split train/val/test by developers, 20 eligible test
// developers with PointsPerDeveloper points each.
const (
	EligiblePerBlock   = 20
	PointsPerDeveloper = 24
	singlesPerBlock    = 149
)

// Ratios are the split ratios, by developers: seed 000's train 135 / val 23
// / test 31 developers.
var Ratios = []graph.Ratio{{Name: "train", Value: 0.71}, {Name: "val", Value: 0.12}, {Name: "test", Value: 0.17}}

// The time split and eligibility of the study: ub split's defaults.
const (
	heldoutFraction    = 0.3
	minHeldoutSessions = 2
	minSessions        = 6
	minHeldoutMoments  = 8
)

// componentShapes is one block's components, as (developers, repositories).
func componentShapes() [][2]int {
	shapes := [][2]int{{16, 3}}
	for range 4 {
		shapes = append(shapes, [2]int{3, 2})
	}
	for range 6 {
		shapes = append(shapes, [2]int{2, 1})
	}
	for i := range singlesPerBlock {
		r := 1
		if i%5 == 0 {
			r = 2
		}
		shapes = append(shapes, [2]int{1, r})
	}
	return shapes
}

// devKind is how far a developer gets down the eligibility funnel.
type devKind int

const (
	kindTrain      devKind = iota // a train developer
	kindFewSession                // val or test, fewer than minSessions sessions
	kindFewMoments                // val or test, too few held-out moments
	kindEligible                  // eligible: scored
)

type developer struct {
	name  string
	idx   int // position in name order
	repos []string
	split string
	kind  devKind
	mix   [4]float64 // move mix, in Moves order
	u     float64    // ability offset, shared by every simulator
}

type session struct {
	s       ub.Session
	heldout bool
}

// moment is a developer turn of an eligible developer's held-out session:
// a candidate point.
type moment struct {
	move      string
	words     int
	developer string
	sessionID string
	turnIdx   int // the developer turn's index, also its prior turns
}

// corpus is the generated study before any simulator runs.
type corpus struct {
	devs   []*developer // by name
	byName map[string]*developer
	edges  []graph.Edge
	// sessions holds the sessions of the developer being drawn only:
	// each developer's are given to the caller of buildCorpus and
	// dropped, so the corpus's text is never all in memory.
	sessions  []session
	nsessions int               // sessions drawn before those in sessions
	moments   map[string]moment // by point id
	// profile holds the move of every moment of an eligible developer's
	// profile (not held-out) sessions, by queries.TurnTargetID.
	profile map[string]profileMoment
	turns   int
}

// profileMoment is a moment of a profile session: its developer and move.
type profileMoment struct{ developer, move string }

// stream returns the generator of one named purpose: every purpose has its
// own PCG stream, so adding a simulator or a sweep changes no other draw.
func stream(seed uint64, purpose string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(purpose))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// gamma draws from Gamma(alpha, 1) (Marsaglia & Tsang 2000, "A simple
// method for generating gamma variables", ACM TOMS 26(3); alpha < 1 by
// boosting with U^(1/alpha)).
func gamma(rng *rand.Rand, alpha float64) float64 {
	if alpha < 1 {
		return gamma(rng, alpha+1) * math.Pow(rng.Float64(), 1/alpha)
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// dirichlet draws a move mix with mean MoveMix and concentration alpha.
func dirichlet(rng *rand.Rand, alpha float64) [4]float64 {
	var g [4]float64
	var s float64
	for i, m := range MoveMix {
		g[i] = gamma(rng, alpha*m)
		s += g[i]
	}
	for i := range g {
		g[i] /= s
	}
	return g
}

func draw(rng *rand.Rand, w [4]float64) int {
	var s float64
	for _, x := range w {
		s += x
	}
	x := rng.Float64() * s
	for i, v := range w {
		if x < v {
			return i
		}
		x -= v
	}
	return len(w) - 1
}

// lengthOf draws a message length around mean words: lognormal with
// sigma 0.4 and mean exactly mean (exp(sigma Z - sigma^2/2) has mean 1),
// at least 2.
func lengthOf(rng *rand.Rand, mean float64) int {
	const sigma = 0.4
	w := int(math.Round(mean * math.Exp(sigma*rng.NormFloat64()-sigma*sigma/2)))
	return max(2, w)
}

// fullHash is the hex sha256 of parts, each written with its length in
// front so that no two lists of parts hash the same bytes.
func fullHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// shortHash is the first 16 hex digits of fullHash.
func shortHash(parts ...string) string { return fullHash(parts...)[:16] }

var repoWords = []string{"api", "cli", "web", "infra", "sdk", "docs", "core", "bot", "data", "ml"}

// buildCorpus draws the developers, repositories, split and sessions of a
// study of scale blocks. It gives the sessions to emit, one developer's at
// a time (in order), and keeps none of them; emit may be nil.
func buildCorpus(seed uint64, scale int, emit func([]session)) (*corpus, error) {
	c := &corpus{byName: map[string]*developer{}, moments: map[string]moment{}, profile: map[string]profileMoment{}}
	nd, nr := 0, 0
	for range scale {
		for _, sh := range componentShapes() {
			devs := make([]*developer, sh[0])
			repos := make([]string, sh[1])
			for i := range repos {
				repos[i] = fmt.Sprintf("org%04d/%s", nr, repoWords[nr%len(repoWords)])
				nr++
			}
			for i := range devs {
				devs[i] = &developer{name: fmt.Sprintf("dev-%04d", nd)}
				nd++
				devs[i].repos = append(devs[i].repos, repos[i%len(repos)])
				if i+1 < len(repos) {
					devs[i].repos = append(devs[i].repos, repos[i+1])
				}
				c.devs = append(c.devs, devs[i])
				c.byName[devs[i].name] = devs[i]
			}
			if len(devs) == 1 && len(repos) == 2 {
				devs[0].repos = repos
			}
		}
	}
	sort.Slice(c.devs, func(i, j int) bool { return c.devs[i].name < c.devs[j].name })
	for i, d := range c.devs {
		d.idx = i
		sort.Strings(d.repos)
	}

	// The split: whole components, by developers, exactly as ub split
	// would assign them (a component's weight is its developers, so the
	// session counts drawn below cannot change it).
	var g graph.Graph
	for _, d := range c.devs {
		for _, r := range d.repos {
			g.Add(graph.Edge{Developer: d.name, Repo: r, Sessions: 1})
		}
	}
	comps := g.Components()
	a, err := graph.Assign(comps, graph.SplitOptions{Seed: int64(seed), Ratios: Ratios, By: graph.ByDevelopers})
	if err != nil {
		return nil, err
	}
	devSplit, _ := a.NodeSplits(comps)
	for _, d := range c.devs {
		d.split = devSplit[d.name]
	}

	// Who is scored: the first EligiblePerBlock*scale test developers in a
	// seeded order; every other val and test developer drops out of the
	// funnel, half at the sessions rule, half at the moments rule.
	var evalDevs []*developer
	for _, d := range c.devs {
		if d.split != "train" {
			evalDevs = append(evalDevs, d)
		}
	}
	rank := func(d *developer) string { return shortHash(fmt.Sprint(seed), "eligible", d.name) }
	sort.Slice(evalDevs, func(i, j int) bool {
		ti, tj := evalDevs[i].split == "test", evalDevs[j].split == "test"
		if ti != tj {
			return ti
		}
		return rank(evalDevs[i]) < rank(evalDevs[j])
	})
	want := EligiblePerBlock * scale
	for i, d := range evalDevs {
		switch {
		case i < want && d.split == "test":
			d.kind = kindEligible
		case i%2 == 0:
			d.kind = kindFewSession
		default:
			d.kind = kindFewMoments
		}
	}
	if len(evalDevs) < want || evalDevs[want-1].split != "test" {
		return nil, fmt.Errorf("synth: the split left fewer than %d test developers", want)
	}

	mixRNG := stream(seed, "developers")
	for _, d := range c.devs {
		d.mix = dirichlet(mixRNG, MixConcentration)
		d.u = DeveloperSpread * (2*mixRNG.Float64() - 1)
	}
	if emit == nil {
		emit = func([]session) {}
	}
	c.makeSessions(seed, emit)
	return c, nil
}

// makeSessions draws every developer's sessions and turns and gives them
// to emit, developer by developer. Real developer messages at candidate
// points follow the developer's move mix.
func (c *corpus) makeSessions(seed uint64, emit func([]session)) {
	rng := stream(seed, "sessions")
	base := time.Date(2025, 1, 6, 9, 0, 0, 0, time.UTC)
	source := fmt.Sprintf("synth:seed=%d", seed)
	edge := map[[2]string]int{}
	for _, d := range c.devs {
		var n int
		switch d.kind {
		case kindTrain:
			n = 2 + rng.IntN(15)
		case kindFewSession:
			n = 1 + rng.IntN(minSessions-1)
		case kindFewMoments:
			n = minSessions + rng.IntN(4)
		case kindEligible:
			n = 12 + rng.IntN(49)
		}
		// Every repository of the developer gets a session, so the graph
		// of the sessions is the graph the split was planned on.
		n = max(n, len(d.repos))
		h := min(n-1, max(minHeldoutSessions, int(math.Ceil(heldoutFraction*float64(n)))))
		start := base.Add(time.Duration(d.idx) * time.Hour)
		var heldMoments int
		first := len(c.sessions)
		if first != 0 {
			panic("synth: sessions left from the previous developer")
		}
		for i := range n {
			held := i >= n-h
			var m int // developer messages in the session
			switch {
			case d.kind == kindEligible && held:
				m = 2 + rng.IntN(10)
			case d.kind == kindFewMoments && held:
				m = 1
			default:
				m = 1 + rng.IntN(3)
			}
			repo := d.repos[i%len(d.repos)]
			if i >= len(d.repos) {
				repo = d.repos[rng.IntN(len(d.repos))]
			}
			edge[[2]string{d.name, repo}]++
			start = start.Add(24*time.Hour + time.Duration(rng.IntN(12*60))*time.Minute)
			s := ub.Session{
				ID: "syn-" + shortHash(fmt.Sprint(seed), d.name, fmt.Sprint(i)), Developer: d.name, Repo: repo,
				StartedAt: start, Format: "synth", SourceFile: source, Line: c.nsessions + len(c.sessions) + 1,
			}
			c.sessions = append(c.sessions, session{s: s, heldout: held})
			c.fillTurns(rng, d, len(c.sessions)-1, m, held)
			if held {
				heldMoments += m - 1
			}
		}
		// An eligible developer needs more held-out moments than points
		// drawn: lengthen the last session until there are.
		for d.kind == kindEligible && heldMoments < PointsPerDeveloper+6 {
			last := first + n - 1
			m := len(c.sessions[last].s.Turns)/2 + 1
			c.fillTurns(rng, d, last, m, true)
			heldMoments++
		}
		emit(c.sessions)
		c.nsessions += len(c.sessions)
		clear(c.sessions)
		c.sessions = c.sessions[:0]
	}
	for k, n := range edge {
		c.edges = append(c.edges, graph.Edge{Developer: k[0], Repo: k[1], Sessions: n})
	}
	sort.Slice(c.edges, func(i, j int) bool {
		if c.edges[i].Developer != c.edges[j].Developer {
			return c.edges[i].Developer < c.edges[j].Developer
		}
		return c.edges[i].Repo < c.edges[j].Repo
	})
}

// fillTurns (re)writes session i with m developer messages, each followed
// by an agent reply. Turn 0 opens the session (no agent turn before it, so
// not a moment); developer turn 2j, j >= 1, is a moment with 2j prior turns.
func (c *corpus) fillTurns(rng *rand.Rand, d *developer, i, m int, held bool) {
	s := &c.sessions[i].s
	c.turns -= len(s.Turns)
	s.Turns = s.Turns[:0]
	for j := range m {
		if j == 0 {
			s.Turns = append(s.Turns, ub.Turn{Role: ub.RoleDeveloper, Text: opening(rng)})
		} else {
			mv := Moves[draw(rng, d.mix)]
			w := lengthOf(rng, RealWords)
			text := message(rng, mv, w)
			s.Turns = append(s.Turns, ub.Turn{Role: ub.RoleDeveloper, Text: text})
			if held && d.kind == kindEligible {
				c.moments[graph.PointID(s.ID, 2*j)] = moment{move: mv, words: w, developer: d.name, sessionID: s.ID, turnIdx: 2 * j}
			}
			if !held && d.kind == kindEligible {
				c.profile[queries.TurnTargetID(s.ID, 2*j)] = profileMoment{developer: d.name, move: mv}
			}
		}
		s.Turns = append(s.Turns, ub.Turn{Role: ub.RoleAgent, Text: agentTurn(rng)})
	}
	c.turns += len(s.Turns)
}
