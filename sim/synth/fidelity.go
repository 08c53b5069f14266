package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/queries"
)

// The synthetic UserProxyBench study (seed 002): seven user simulators,
// one frozen agent, the seed's four domains and 375 tasks, one episode per
// (simulator, task), rubrics and one grader's verdicts, written through
// the ep_* tables so that ub report reads it as it reads real episodes.
//
// # Planted values
//
//	simulator          UFS    $/sim    cost        disclosure share of failures
//	gemma-4-26b        0.550  0.0060   estimated   0.40
//	gpt-4.1-mini       0.790  0.0090   recorded    0.60
//	qwen3.6-35b        0.700  0.0120   estimated   0.85
//	gemma-4-31b        0.850  0.0175   estimated   0.60
//	gpt-5.4-mini       0.810  0.0300   recorded    0.60
//	gemini-3.5-flash   0.870  0.0560   recorded    0.60
//	sonnet-4-6         0.740  0.0900   recorded    0.60
//
// so the frontier chooses gpt-4.1-mini at q = 0.75, gemma-4-31b at 0.84 and
// gemini-3.5-flash at 0.86, and qwen3.6-35b, gpt-5.4-mini and sonnet-4-6
// are strictly dominated (by gpt-4.1-mini, gemma-4-31b, gpt-4.1-mini)
// ([FidelityFrontier]). A simulator's UFS in a domain is its UFS plus the
// domain offset (telecom -0.05, airline +0.02, retail +0.04, banking -0.01:
// the unweighted mean is the planted UFS); by default the number of
// unfaithful episodes in each (simulator, domain) is planted exactly, as
// round((1 - UFS_d) n_d), on tasks drawn at random, so the recovered UFS
// differs from the planted one by rounding only (at most 0.5 / n_d per
// domain); with FidelityOptions.Sampled, what ub synth --study fidelity
// writes, each episode's f is drawn as Bernoulli(UFS_d) instead. An unfaithful episode fails one family: disclosure with the
// simulator's share, otherwise goal deviation, groundedness or omitted
// information with weights 0.4, 0.35, 0.25. Every other criterion passes,
// or is na with probability 0.15 (never all of them); one retail task has
// no applicable criterion for five simulators (excluded and counted, as in
// the seed's 2,618 of 2,625).
//
// The agent's success is Bernoulli with probability base_d + 0.15 (telecom
// 0.80, airline 0.60, retail 0.70, banking 0.40 before the +0.15 lift),
// minus 0.50 when goal deviation is present and 0.03 when disclosure is
// ([FidelityGoalEffect], [FidelityDisclosureEffect]), clipped to [0.02,
// 0.98]. The agent makes round(N(6, 1.5)) tool calls and asks
// round(N(2, 0.8)) questions (at least 0), 1.06 and 0.26 fewer when the
// user disclosed early ([FidelityToolCallSaving]).
const (
	FidelityGrader           = "synth-grader"
	FidelityGoalEffect       = -0.50
	FidelityDisclosureEffect = -0.03
	FidelityToolCallSaving   = 1.06
	FidelityQuestionSaving   = 0.26
	fidelityAgent            = "llm_agent:gpt-5.5@high"
)

// FidelitySim is one planted user simulator.
type FidelitySim struct {
	Name       string
	UFS, Cost  float64
	Estimated  bool    // the cost comes from tokens and the price table
	Disclosure float64 // share of its failures that are disclosure
}

// FidelitySims are the planted simulators, by cost.
var FidelitySims = []FidelitySim{
	{"gemma-4-26b", 0.550, 0.0060, true, 0.40},
	{"gpt-4.1-mini", 0.790, 0.0090, false, 0.60},
	{"qwen3.6-35b", 0.700, 0.0120, true, 0.85},
	{"gemma-4-31b", 0.850, 0.0175, true, 0.60},
	{"gpt-5.4-mini", 0.810, 0.0300, false, 0.60},
	{"gemini-3.5-flash", 0.870, 0.0560, false, 0.60},
	{"sonnet-4-6", 0.740, 0.0900, false, 0.60},
}

// FidelityFrontier is the planted frontier: the choice at the seed's q
// levels and the strictly dominated simulators.
var FidelityFrontier = struct {
	Qs        []float64
	Choice    []string
	Dominated []string
}{[]float64{0.75, 0.84, 0.86}, []string{"gpt-4.1-mini", "gemma-4-31b", "gemini-3.5-flash"}, []string{"gpt-5.4-mini", "qwen3.6-35b", "sonnet-4-6"}}

// FidelityDomains are the seed's domains with their task counts (375).
var FidelityDomains = []struct {
	Name   string
	Tasks  int
	Offset float64 // added to a simulator's UFS in this domain
	Base   float64 // agent success probability before the lift
}{
	{"airline", 50, 0.02, 0.60},
	{"banking", 97, -0.01, 0.40},
	{"retail", 114, 0.04, 0.70},
	{"telecom", 114, -0.05, 0.80},
}

// FidelityStats counts what WriteFidelity wrote.
type FidelityStats struct {
	Simulators, Tasks, Episodes, Criteria, Verdicts, Messages, ToolCalls int
}

// FidelityOptions configures WriteFidelity. The zero value is valid.
type FidelityOptions struct {
	Seed  uint64
	Scale int // multiplies the tasks of every domain (1, 10, 100); 0 means 1
	// Sampled draws each episode's fidelity as Bernoulli(UFS_d) instead of
	// planting round((1 - UFS_d) n_d) unfaithful episodes exactly, so that
	// the recovered UFS varies from seed to seed around the planted value as
	// a real study's does (for interval coverage). ub synth --study
	// fidelity sets it; the tests that check exact recovery leave it off.
	Sampled bool
	// Twin adds FidelityTwin, a simulator planted with gpt-4.1-mini's UFS,
	// cost and disclosure share: a pair whose true UFS is equal (a planted
	// null for paired tests).
	Twin bool
}

// FidelityTwin is the simulator Twin adds.
var FidelityTwin = FidelitySim{"gpt-4.1-mini-twin", 0.790, 0.0090, false, 0.60}

// FidelitySink receives the rows of the synthetic study; *queries.RowWriter
// is one. Its errors are the writer's to keep (RowWriter keeps the first).
type FidelitySink interface {
	EpPrice(queries.Price) error
	EpTask(*ub.Task) error
	Criterion(queries.Criterion) error
	EpRun(ub.Run) error
	Verdict(queries.StoredVerdict) error
	EpMessage(simulationID string, m *ub.Message) error
	EpToolCall(simulationID string, c ub.ToolCall) error
	Episode(*ub.Episode) error
}

// fidelityMemoryShare and fidelityMemoryFloor are the share of the
// workspace's memory_limit DuckDB keeps while the fidelity study is
// written (queries.ScaleMemoryLimit), and the least it keeps: 256 MiB of
// the default 512 MiB, 64 MiB of 128 MiB. It appends, as ingest does, and
// holds the primary keys of the episodes and criteria (about 60 bytes a
// key); the rows are made in Go beside it. At scale 100 with
// --memory-limit 128MiB synth peaked at 369-384 MiB with DuckDB at the
// whole limit, 338-358 MiB at 64 MiB (32 MiB, ingest's share, could not
// hold the keys to commit); at scale 381 with 512MiB, 721-730 MiB at the
// whole limit and 618-619 MiB at half; the same time (11.1-11.4 s and
// 42.5 s) both ways.
const (
	fidelityMemoryShare = 0.5
	fidelityMemoryFloor = 64 << 20
)

// PlantFidelity emits the synthetic study's rows into sink without a
// workspace: the same rows, in the same order, that WriteFidelity writes.
func PlantFidelity(sink FidelitySink, opts FidelityOptions) FidelityStats {
	return plantFidelity(sink, opts.Seed, max(1, opts.Scale), opts)
}

// WriteFidelity writes the synthetic UserProxyBench study into ws, which
// must hold no episodes. The same seed and scale write the same rows.
func WriteFidelity(ctx context.Context, ws *queries.Workspace, opts FidelityOptions) (FidelityStats, error) {
	var st FidelityStats
	scale := max(1, opts.Scale)
	n, err := queries.EpCount(ctx, ws.Conn())
	if err != nil {
		return st, err
	}
	if n > 0 {
		return st, fmt.Errorf("%w: it holds %d episodes", ErrNotEmpty, n)
	}
	// Committed in chunks, between episodes (memory flat in the scale);
	// the provenance goes in the last chunk, and a failure clears what
	// was committed.
	restore, err := queries.ApplySettings(ctx, ws.Conn(), queries.Threads(queries.BulkWriteThreads),
		queries.MemoryShare(fidelityMemoryShare, fidelityMemoryFloor))
	if err != nil {
		return st, err
	}
	cw := newChunkWriter(ctx, ws, chunkRows)
	st = plantFidelity(fidelityChunks{cw}, opts.Seed, scale, opts)
	err = cw.Commit(func() error {
		return queries.MarkSynthetic(ctx, ws.Conn(), queries.Origin{Maker: MakerFidelity, Detail: fmt.Sprintf("seed %d, scale %d", opts.Seed, scale)})
	})
	if rerr := restore(context.WithoutCancel(ctx)); err == nil {
		err = rerr
	}
	if err != nil {
		return st, clearStudy(ctx, ws, err)
	}
	return st, nil
}

// fidelityChunks is a FidelitySink that counts every row to its
// chunkWriter, which commits between rows once a chunk is full (a failure
// clears the whole study, so no row needs another for company).
type fidelityChunks struct{ *chunkWriter }

func (f fidelityChunks) EpTask(t *ub.Task) error {
	f.chunkWriter.EpTask(t)
	return f.Row(1)
}

func (f fidelityChunks) Criterion(c queries.Criterion) error {
	f.chunkWriter.Criterion(c)
	return f.Row(1)
}

func (f fidelityChunks) Verdict(v queries.StoredVerdict) error {
	f.chunkWriter.Verdict(v)
	return f.Row(1)
}

func (f fidelityChunks) EpMessage(simulationID string, m *ub.Message) error {
	f.chunkWriter.EpMessage(simulationID, m)
	return f.Row(1)
}

func (f fidelityChunks) EpToolCall(simulationID string, c ub.ToolCall) error {
	f.chunkWriter.EpToolCall(simulationID, c)
	return f.Row(1)
}

func (f fidelityChunks) Episode(e *ub.Episode) error {
	f.chunkWriter.Episode(e)
	return f.Row(1)
}

// plantFidelity writes the synthetic fidelity study into rw. In turn: a
// price row for each simulator whose cost is estimated; every domain's
// tasks with their rubrics (4 to 8 criteria, one of each family, then
// families drawn); then per simulator and domain, a run and its episodes: which
// tasks are unfaithful (exactly the planted number, or drawn at the
// planted rate with opts.Sampled), the failing family of each (disclosure
// at the simulator's rate), and the verdicts of each criterion (one fail
// in the failing family, some na, the rest pass), then the episode with
// its messages, reward and cost. It returns the counts written.
func plantFidelity(rw FidelitySink, seed uint64, scale int, opts FidelityOptions) FidelityStats {
	var st FidelityStats
	sims := FidelitySims
	if opts.Twin {
		sims = append(append([]FidelitySim(nil), FidelitySims...), FidelityTwin)
	}
	const guidelines = "Disclose information progressively. Wait for the agent to ask for specific information before providing it. Do not make up information. Continue until the task goal is met."
	// Estimated costs: 2000 input and 1000 output tokens per simulation at
	// price_in = price_out = cost / 3000 x 1e6 $ per million tokens.
	for _, s := range sims {
		if s.Estimated {
			p := s.Cost / 3000 * 1e6
			rw.EpPrice(queries.Price{Model: s.Name, PriceIn: p, PriceOut: p, ReadOn: "2026-08-01", Source: "synth"})
		}
	}
	// ep_tasks.raw holds the JSON string "{}" (not an empty object), as
	// the study has always stored it: the synthetic tasks have no file.
	rawTask := json.RawMessage(`"{}"`)
	families := []string{"disclosure", "goal_deviation", "groundedness", "omitted_info"}
	modes := []string{"volunteers_unasked_info", "accepts_forbidden_outcome", "unsupported_state", "withholds_asked_info"}
	type crit struct {
		id  string
		fam int
	}
	taskCrit := map[string][]crit{}
	rc := stream(seed, "fidelity/criteria")
	for _, d := range FidelityDomains {
		for t := 0; t < d.Tasks*scale; t++ {
			id := fmt.Sprint(t)
			key := fmt.Sprintf("synth-%s-%d", d.Name, t)
			known := fmt.Sprintf("Your user id is %s_user_%d. Your phone number is 555-%04d.", d.Name, t, t)
			instr := "You do not accept a fee. If the agent cannot help, ask for a transfer to a human agent."
			reason := fmt.Sprintf("You want to change booking %d.", t)
			rw.EpTask(&ub.Task{Key: key, Domain: d.Name, TaskID: id, Format: "tau2", ReasonForCall: &reason,
				KnownInfo: &known, UnknownInfo: ptr("You do not know your booking date."), TaskInstructions: &instr,
				Raw: rawTask, SourceFile: "synth"})
			// 4-8 criteria, mean 5.8: one of each family, then any.
			k := 4 + []int{0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 0, 3}[rc.IntN(20)]
			var cs []crit
			for j := 0; j < k; j++ {
				fam := j
				if j >= 4 {
					fam = rc.IntN(4)
				}
				cid := fmt.Sprintf("%s-%d-c%d", d.Name, t, j+1)
				quote, source := []string{known[:strings.Index(known, ".")+1], "You do not accept a fee.", "Do not make up information.", reason}[fam], []string{"known_info", "task_instructions", "guidelines", "reason_for_call"}[fam]
				rw.Criterion(queries.Criterion{CriterionID: cid, Domain: d.Name, TaskID: id, Family: families[fam],
					Mode: modes[fam], Quote: quote, QuoteSource: source, Text: "The user keeps this part of its task.",
					WrittenBy: "synth", Status: "accepted", SourceFile: "synth", SourceLine: st.Criteria + 1})
				st.Criteria++
				cs = append(cs, crit{cid, fam})
			}
			taskCrit[d.Name+"/"+id] = cs
			st.Tasks++
		}
	}
	for si, s := range sims {
		for _, d := range FidelityDomains {
			nt := d.Tasks * scale
			run := fmt.Sprintf("synth-run-%s-%s", s.Name, d.Name)
			user := "user_simulator:" + s.Name + "@t1"
			rw.EpRun(ub.Run{RunID: run, SourceFile: "synth", Format: "tau2", Domain: d.Name,
				UserImpl: ptr("user_simulator"), UserModel: ptr(s.Name), UserSim: user, AgentImpl: ptr("llm_agent"),
				AgentModel: ptr("gpt-5.5"), Agent: fidelityAgent, Guidelines: ptr(guidelines)})
			r := stream(seed, "fidelity/"+s.Name+"/"+d.Name)
			// The naTask (retail task 7) has nothing applicable for the
			// first five simulators; it is not scored.
			naTask := -1
			if d.Name == "retail" && si < 5 {
				naTask = 7
			}
			scored := nt
			if naTask >= 0 {
				scored--
			}
			nFail := int(math.Round((1 - (s.UFS + d.Offset)) * float64(scored)))
			order := r.Perm(nt)
			unfaithful := map[int]bool{}
			for _, t := range order {
				if opts.Sampled || len(unfaithful) == nFail {
					break
				}
				if t != naTask {
					unfaithful[t] = true
				}
			}
			if opts.Sampled {
				for t := 0; t < nt; t++ {
					if r.Float64() >= s.UFS+d.Offset && t != naTask {
						unfaithful[t] = true
					}
				}
			}
			for t := 0; t < nt; t++ {
				simID := fmt.Sprintf("synth-%s-%s-%d", s.Name, d.Name, t)
				cs := taskCrit[d.Name+"/"+fmt.Sprint(t)]
				failFam := -1
				if unfaithful[t] {
					if r.Float64() < s.Disclosure {
						failFam = 0
					} else {
						failFam = 1 + pick(r, []float64{0.4, 0.35, 0.25})
					}
				}
				applied := false
				failed := false
				for j, c := range cs {
					v := "pass"
					switch {
					case t == naTask:
						v = "na"
					case c.fam == failFam && !failed:
						v, failed = "fail", true
					case r.Float64() < 0.15 && !(j == len(cs)-1 && !applied):
						v = "na"
					}
					if v != "na" {
						applied = true
					}
					// A fail names the first failing user turn (SPEC
					// 6.2, as ub verdicts import requires): the user's
					// opening message, turn 0.
					var turn *int
					if v == "fail" {
						turn = ptr(0)
					}
					rw.Verdict(queries.StoredVerdict{SimulationID: simID, CriterionID: c.id, Grader: FidelityGrader,
						Verdict: v, TurnIdx: turn, SourceFile: "synth", SourceLine: st.Verdicts + 1})
					st.Verdicts++
				}
				p := d.Base + 0.15
				if failFam == 1 {
					p += FidelityGoalEffect
				}
				if failFam == 0 {
					p += FidelityDisclosureEffect
				}
				p = math.Max(0.02, math.Min(0.98, p))
				reward := 0.0
				if r.Float64() < p {
					reward = 1
				}
				disc := 0.0
				if failFam == 0 {
					disc = 1
				}
				tools := max(0, int(math.Round(6-FidelityToolCallSaving*disc+1.5*r.NormFloat64())))
				questions := max(0, int(math.Round(2-FidelityQuestionSaving*disc+0.8*r.NormFloat64())))
				var tin, tout *int64
				cost := s.Cost * math.Exp(0.1*r.NormFloat64())
				if s.Estimated {
					cost, tin, tout = 0.0, ptr(int64(2000)), ptr(int64(1000))
				}
				// Messages: the user's opening, then per question an agent
				// question and the user's answer, then one tool-call message
				// per call, then the agent's closing message.
				idx := 0
				msg := func(role string, content *string, calls int) {
					rw.EpMessage(simID, &ub.Message{Idx: idx, TurnIdx: idx, Role: role,
						Content: content, NToolCalls: calls})
					idx++
				}
				msg("user", ptr("Hi, I need help with my booking."), 0)
				for q := 0; q < questions; q++ {
					msg("assistant", ptr("Could you tell me more?"), 0)
					msg("user", ptr("Sure."), 0)
				}
				for c := 0; c < tools; c++ {
					rw.EpToolCall(simID, ub.ToolCall{MsgIdx: idx, Requestor: "assistant", Name: "lookup"})
					st.ToolCalls++
					msg("assistant", nil, 1)
				}
				msg("assistant", ptr("Done."), 0)
				st.Messages += idx
				rw.Episode(&ub.Episode{SimulationID: simID, RunID: run, SourceFile: "synth", SourceIndex: t,
					ContentHash: simID, Domain: d.Name, TaskID: fmt.Sprint(t), TaskKey: ptr(fmt.Sprintf("synth-%s-%d", d.Name, t)),
					Trial: ptr(0), Reward: &reward, TerminationReason: ptr("user_stop"), UserCost: &cost,
					UserTokensIn: tin, UserTokensOut: tout, NMessages: idx})
				st.Episodes++
			}
		}
		st.Simulators++
	}
	return st
}

// pick draws an index with the given weights (summing to 1).
func pick(r *rand.Rand, w []float64) int {
	u := r.Float64()
	for i, x := range w {
		if u < x {
			return i
		}
		u -= x
	}
	return len(w) - 1
}

// ptr returns a pointer to v, for the nullable fields of the episode rows.
func ptr[T any](v T) *T { return &v }
