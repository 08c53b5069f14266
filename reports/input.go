package reports

import (
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// The default prompt setting: the leaderboard's live window and history.
const (
	defaultN = queries.DefaultN
	defaultK = queries.DefaultK
)

// FigureInfo names one figure of the report.
type FigureInfo struct {
	Name  string // the --figure name and the base name of its files
	Title string
}

// Figures lists every figure of the report, in report order.
func Figures() []FigureInfo {
	out := make([]FigureInfo, len(builders))
	for i, b := range builders {
		out[i] = FigureInfo{Name: b.name, Title: b.title}
	}
	return out
}

// MissingError says that a figure's data is not in the workspace, and
// which command makes it.
type MissingError struct {
	Figure string
	Reason string // e.g. "no generations with history_k > 0: run ub generate ..."
}

// Error says which figure is missing what.
func (e *MissingError) Error() string { return e.Figure + ": " + e.Reason }

func missing(fig, format string, args ...any) error {
	return &MissingError{Figure: fig, Reason: fmt.Sprintf(format, args...)}
}

// ErrUnknownFigure is returned for a figure name not in Figures.
var ErrUnknownFigure = errors.New("unknown figure")

// Input is what a report is drawn from.
type Input struct {
	Study *queries.Study
	Split *SplitSummary // nil when the workspace has no split
	// JudgeQuality is the built-in judge's measured agreement and Deciders
	// who decided the report judge's labels (judgequality.go); nil and
	// empty mean unmeasured.
	JudgeQuality *JudgeQuality
	Deciders     []Decider
	// Episodes is nil when the workspace has no episodes; one without an
	// episode that a statistic counts (only placeholders and solo-mode
	// episodes) only tells the report what it leaves out.
	Episodes *queries.EpisodeReport
	Review   *analysis.ReviewStats  // nil when the workspace has no review decision
	Attempts *analysis.AttemptShare // the review's error share over every attempt; nil: no attempt was discarded
	// Bootstrap sets the replicates, seed and level of every bootstrap
	// interval and sign-flip test of the report; the zero value is B =
	// 1,000 from analysis.DefaultBootstrapSeed at 95%.
	Bootstrap analysis.BootstrapOptions
	// Synthetic lists the commands that made up the workspace's data
	// (queries.Provenance); when any did, every figure carries a
	// "synthetic data" mark and the report's title says so.
	Synthetic []queries.Origin
	// Build is the ub that draws the report, recorded in manifest.json.
	Build Build
	// Studies restricts the report to these studies (Studies names); nil:
	// every study the workspace holds.
	Studies []string
	// Rubrics and FailureModes describe the user-fidelity rubric set and
	// its failures (queries.RubricCounts, queries.FailureModes); nil: none.
	Rubrics []queries.RubricCount
	// RubricSummary, when not nil, describes the rubric set instead of
	// Rubrics (queries.LoadRubricSummary: no row per task).
	RubricSummary *queries.RubricSummary
	FailureModes  []queries.FailureMode
	// Fine is each judge pair's agreement on the 7-way labels and on their
	// 4-way collapse of the same targets; Fleiss the agreement of three or
	// more judges on the targets all of them labelled. Empty and nil: none.
	Fine   []FineKappa
	Fleiss *FleissAgreement
	// OffLeaderboard are simulators kept in the data (and in the sweeps
	// and tables) but not ranked on the leaderboard, the pairwise tests,
	// the profile effect or the case study.
	OffLeaderboard []string
	// Simulators restricts each study to the simulators named here that
	// are its own (a study none of whose simulators is named keeps them
	// all); nil: every simulator.
	Simulators []string
	// CaseDeveloper is the developer the case study follows ("": the one
	// CaseDeveloper chooses) and CaseSimulators the simulators it shows
	// (nil: every ranked simulator scored in both conditions).
	CaseDeveloper  string
	CaseSimulators []string
}

// FineKappa is two judges' agreement on the targets both gave a 7-way
// label: Cohen's kappa on the seven labels and on their 4-way collapse.
type FineKappa struct {
	A, B           string
	N              int
	Kappa7, Kappa4 analysis.Kappa
}

// FleissAgreement is Fleiss' kappa of three or more judges on the moves
// of the targets every one of them labelled.
type FleissAgreement struct {
	Judges []string
	Items  int
	Kappa  float64
}

// Build names a build of ub: its version and commit.
type Build struct {
	Version string `json:"version"`
	Commit  string `json:"commit"`
}

// syntheticMark is the note every figure of a synthetic workspace carries,
// "" for the user's own data.
func (r *Report) syntheticMark() string { return SyntheticMark(r.in.Synthetic) }

// SyntheticMark is the note figures drawn from data the given commands
// made up carry: "synthetic data (ub demo, seed 1): not measured"; "" when
// none did.
func SyntheticMark(origins []queries.Origin) string {
	if len(origins) == 0 {
		return ""
	}
	return "synthetic data (" + originText(origins) + "): not measured"
}

// originText names the commands that made the data up and their settings.
func originText(origins []queries.Origin) string {
	parts := make([]string, len(origins))
	for i, o := range origins {
		parts[i] = o.Maker
		if o.Detail != "" {
			parts[i] += ", " + o.Detail
		}
	}
	return strings.Join(parts, "; ")
}

// groupKey is one setting: a simulator in a condition at (N, K).
type groupKey struct {
	sim, cond string
	n, k      int
}

// group is the scored generations of one setting.
type group struct {
	generations int                       // at frozen points
	outcomes    []analysis.Outcomes       // scored moments, counted: by move at the anchor setting, else hits and misses (tally)
	moments     int                       // scored moments: analysis.Total(outcomes)
	dose        []analysis.Outcomes       // the constant-dose subset, as hits and misses (tally)
	lengthWords []analysis.LengthCount    // generations with text by length in words
	lengthDevs  []analysis.DeveloperWords // the same by developer, with their words
	failed      int
	unlabelled  int
	missing     int // scorable points with no generation in the group (scored as misses)
	tokensOut   int
	cost        float64
}

// Report is a study prepared for drawing: generations grouped by setting
// and scored against the real moves, the anchor setting chosen.
type Report struct {
	in     Input
	st     *queries.Study
	groups map[groupKey]*group
	// anchorN, anchorK are the leaderboard's setting: N = 14, K = 0 when
	// any profile or no-profile generation has it, else the setting with
	// the most such generations.
	anchorN, anchorK int
	// unscoredPoints counts points whose real message the judge has not
	// labelled (or could not read); their generations are not scored.
	unscoredPoints int
	caseTexts      *queries.CaseTexts
	fid            *fidelity              // the User fidelity section (SetFidelity); nil: none
	rubrics        *queries.RubricSummary // Input.RubricSummary, or Input.Rubrics summarized
	cmpMu          sync.Mutex
	cmp            map[string]*analysis.Comparison // comparison(cond), computed once
	// simNames are the simulators of every study the report holds, before
	// Input.Simulators restricts them (UnknownSimulators).
	simNames map[string]bool
	// leftOut is Input.Episodes when it holds no episode a statistic
	// counts, only placeholders and solo-mode episodes (in.Episodes is
	// then nil): the report says they exist and are left out.
	leftOut *queries.EpisodeReport
}

// Prepare groups and scores the study's generations: its Settings,
// Scores, Outcomes and lengths as queries.LoadStudy aggregates them (the
// moves and lengths at the anchor setting only), or, for a
// study built in memory, its Generations, aggregated here the same way. A
// generation that failed, or is missing at a scorable point, scores as a
// miss; one the judge has not labelled is left out and counted, as are
// points whose real message it has not labelled.
func Prepare(in Input) *Report {
	st := in.Study
	if st == nil {
		st = &queries.Study{}
	}
	if st.Generations != nil {
		st = aggregate(st)
	}
	r := &Report{in: in, st: st, groups: map[groupKey]*group{}, rubrics: in.RubricSummary}
	if r.rubrics == nil {
		r.rubrics = summarizeRubrics(in.Rubrics)
	}
	if in.Episodes != nil && in.Episodes.Len() == 0 {
		r.leftOut, r.in.Episodes = in.Episodes, nil
	}
	for _, p := range st.Points {
		if !scorable(p.Real) {
			r.unscoredPoints++
		}
	}
	for _, s := range st.Settings {
		gr := r.groupOf(s.Simulator, s.Condition, s.N, s.K)
		gr.generations += s.Generations
		gr.tokensOut += s.TokensOut
		gr.cost += s.Cost
	}
	r.anchorN, r.anchorK = queries.Anchor(st.Settings)
	// The outcomes and lengths stay counted (analysis.Outcomes,
	// LengthCount, DeveloperWords):
	// every statistic of analysis counts them per developer and move, so
	// neither their order within a group nor rows with equal keys matter.
	// Off the anchor setting only the sweeps read a group's outcomes, and
	// they score accuracy per developer: there the outcomes are the
	// Scores' hits and misses (tally), not the moves.
	for _, s := range st.Scores {
		gr := r.groupOf(s.Simulator, s.Condition, s.N, s.K)
		gr.moments += s.Moments
		gr.failed += s.Failed
		gr.missing += s.Missing
		gr.unlabelled += s.Unlabelled
		if !r.atAnchor(s.N, s.K) {
			gr.outcomes = tally(gr.outcomes, s.Developer, s.Hits, s.Moments)
		}
		gr.dose = tally(gr.dose, s.Developer, s.DoseHits, s.DoseMoments)
	}
	// The anchor's outcomes are most of the memory at scale: their
	// slices are sized first.
	nOut := map[*group]int{}
	for _, o := range st.Outcomes {
		if r.atAnchor(o.N, o.K) {
			nOut[r.groupOf(o.Simulator, o.Condition, o.N, o.K)]++
		}
	}
	for gr, n := range nOut {
		gr.outcomes = slices.Grow(gr.outcomes, n)
	}
	for _, o := range st.Outcomes {
		if !r.atAnchor(o.N, o.K) {
			continue
		}
		gr := r.groupOf(o.Simulator, o.Condition, o.N, o.K)
		gr.outcomes = append(gr.outcomes, analysis.Outcomes{Outcome: analysis.Outcome{Developer: o.Developer, Real: o.Real, Generated: o.Generated}, Count: o.Count})
	}
	for _, l := range st.LengthWords {
		gr := r.groupOf(l.Simulator, l.Condition, l.N, l.K)
		gr.lengthWords = append(gr.lengthWords, analysis.LengthCount{Words: l.Words, Messages: l.Count})
	}
	for _, l := range st.LengthDevelopers {
		gr := r.groupOf(l.Simulator, l.Condition, l.N, l.K)
		gr.lengthDevs = append(gr.lengthDevs, analysis.DeveloperWords{Developer: l.Developer, Messages: l.Count, Words: l.Words})
	}
	r.restrictSimulators()
	return r
}

// restrictSimulators drops the groups and simulator rows of the
// simulators Input.Simulators leaves out, when it names any of the
// study's simulators.
func (r *Report) restrictSimulators() {
	r.simNames = map[string]bool{}
	for k := range r.groups {
		r.simNames[k.sim] = true
	}
	for _, s := range r.st.Simulators {
		r.simNames[s.Name] = true
	}
	if r.in.Episodes != nil {
		for e := range r.in.Episodes.All() {
			r.simNames[e.UserSim] = true
		}
	}
	keep := map[string]bool{}
	for _, s := range r.in.Simulators {
		keep[s] = true
	}
	named := false
	for k := range r.groups {
		named = named || keep[k.sim]
	}
	for _, s := range r.st.Simulators {
		named = named || keep[s.Name]
	}
	if !named {
		return
	}
	for k := range r.groups {
		if !keep[k.sim] {
			delete(r.groups, k)
		}
	}
	st := *r.st
	st.Simulators = nil
	for _, s := range r.st.Simulators {
		if keep[s.Name] {
			st.Simulators = append(st.Simulators, s)
		}
	}
	r.st = &st
}

// UnknownSimulators are the names no study of the report knows as a
// simulator, in the order given.
func (r *Report) UnknownSimulators(names []string) []string {
	var out []string
	for _, n := range names {
		if !r.simNames[n] {
			out = append(out, n)
		}
	}
	return out
}

// SimulatorNames are the simulators of every study the report holds,
// sorted.
func (r *Report) SimulatorNames() []string {
	out := make([]string, 0, len(r.simNames))
	for n := range r.simNames {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// ranked is whether sim may be ranked: not marked off the leaderboard.
func (r *Report) rankable(sim string) bool { return !slices.Contains(r.in.OffLeaderboard, sim) }

// tallyMove is the move of the outcomes tally makes: a hit is tallyMove
// against tallyMove, a miss tallyMove against "".
const tallyMove = "="

// tally appends developer's hits out of n moments to out as counted
// outcomes that record only whether the generated move was the real one:
// what per-developer accuracy (analysis.PerDeveloper) reads.
func tally(out []analysis.Outcomes, developer string, hits, n int) []analysis.Outcomes {
	if hits > 0 {
		out = append(out, analysis.Outcomes{Outcome: analysis.Outcome{Developer: developer, Real: tallyMove, Generated: tallyMove}, Count: hits})
	}
	if n > hits {
		out = append(out, analysis.Outcomes{Outcome: analysis.Outcome{Developer: developer, Real: tallyMove}, Count: n - hits})
	}
	return out
}

// atAnchor is whether (n, k) is the anchor setting.
func (r *Report) atAnchor(n, k int) bool { return n == r.anchorN && k == r.anchorK }

// groupOf returns the setting's group, making it when new.
func (r *Report) groupOf(sim, cond string, n, k int) *group {
	key := groupKey{sim, cond, n, k}
	gr := r.groups[key]
	if gr == nil {
		gr = &group{}
		r.groups[key] = gr
	}
	return gr
}

// aggregate returns a copy of st with its Generations aggregated into
// Settings, Scores, Outcomes, LengthWords and LengthDevelopers as
// queries.LoadStudy reads them from a workspace (study_settings.sql,
// study_scores.sql, study_outcomes.sql, study_length_words.sql and
// study_length_developers.sql; outcomes at the anchor setting only,
// lengths at every setting), for studies built in memory. Rows with equal
// keys are not merged; Prepare adds them up.
func aggregate(st *queries.Study) *queries.Study {
	out := *st
	out.Generations = nil
	out.Settings, out.Scores, out.Outcomes, out.LengthWords, out.LengthDevelopers = nil, nil, nil, nil, nil
	out.TrialScores, out.TrialPoints = nil, nil
	type setting struct {
		sim, cond string
		n, k      int
	}
	sets := map[setting]*queries.StudySetting{}
	present := map[setting]map[[2]int]bool{} // point, trial
	var order []setting
	for _, g := range st.Generations {
		key := setting{g.Simulator, g.Condition, g.N, g.K}
		s := sets[key]
		if s == nil {
			s = &queries.StudySetting{Simulator: g.Simulator, Condition: g.Condition, N: g.N, K: g.K}
			sets[key] = s
			present[key] = map[[2]int]bool{}
			order = append(order, key)
		}
		s.Generations++
		s.TokensOut += g.TokensOut
		s.Cost += g.Cost
		present[key][[2]int{g.Point, g.Trial}] = true
		if !g.Failed {
			out.LengthWords = append(out.LengthWords, queries.StudyLengthWords{Simulator: g.Simulator, Condition: g.Condition,
				N: g.N, K: g.K, Words: g.Words, Count: 1})
			out.LengthDevelopers = append(out.LengthDevelopers, queries.StudyLengthDeveloper{Simulator: g.Simulator, Condition: g.Condition,
				N: g.N, K: g.K, Developer: st.Points[g.Point].Developer, Count: 1, Words: g.Words})
		}
	}
	for _, key := range order {
		out.Settings = append(out.Settings, *sets[key])
	}
	an, ak := queries.Anchor(out.Settings)
	trials := aggregateTrials(st, &out, an, ak)
	// moment counts one moment at point p in the setting key: generated
	// is the judge's move of a scored one, "" of a failed or missing one,
	// which kind counts (Failed or Missing 1).
	moment := func(key setting, p queries.StudyPoint, generated string, kind queries.StudyScores) {
		s := kind
		s.Simulator, s.Condition, s.N, s.K, s.Developer, s.Moments = key.sim, key.cond, key.n, key.k, p.Developer, 1
		if generated == p.Real {
			s.Hits = 1
		}
		if p.ConstantDose {
			s.DoseHits, s.DoseMoments = s.Hits, 1
		}
		out.Scores = append(out.Scores, s)
		if key.n == an && key.k == ak {
			out.Outcomes = append(out.Outcomes, queries.StudyOutcomes{Simulator: key.sim, Condition: key.cond, N: key.n, K: key.k,
				Developer: p.Developer, Real: p.Real, Generated: generated, Count: 1})
		}
	}
	for _, g := range st.Generations {
		p := st.Points[g.Point]
		if !scorable(p.Real) {
			continue
		}
		key := setting{g.Simulator, g.Condition, g.N, g.K}
		switch {
		case g.Failed:
			moment(key, p, "", queries.StudyScores{Failed: 1})
		case g.Move == "":
			out.Scores = append(out.Scores, queries.StudyScores{Simulator: key.sim, Condition: key.cond, N: key.n, K: key.k,
				Developer: p.Developer, Unlabelled: 1})
		default:
			moment(key, p, g.Move, queries.StudyScores{})
		}
	}
	for _, key := range order {
		for pi, p := range st.Points {
			for tr := range trials(key.sim, key.cond, key.n, key.k) {
				if scorable(p.Real) && !present[key][[2]int{pi, tr}] {
					moment(key, p, "", queries.StudyScores{Missing: 1})
				}
			}
		}
	}
	return &out
}

// scorable is whether a real move can be scored against: labelled and
// readable. "other" is a move like any other (SPEC section 4).
func scorable(m string) bool { return m != "" && m != "unparseable" }

// group returns the setting's group, or nil.
func (r *Report) group(sim, cond string, n, k int) *group {
	return r.groups[groupKey{sim, cond, n, k}]
}

// anchor returns the scored outcomes of sim in cond at the anchor setting;
// nil when there are none.
func (r *Report) anchor(sim, cond string) []analysis.Outcomes {
	if g := r.group(sim, cond, r.anchorN, r.anchorK); g != nil && g.moments > 0 {
		return g.outcomes
	}
	return nil
}

// leaderboardSims returns the simulators scored at the anchor with or
// without profile, sorted by name, but those kept off the leaderboard.
func (r *Report) leaderboardSims() []string {
	seen := map[string]bool{}
	for k, g := range r.groups {
		if k.n == r.anchorN && k.k == r.anchorK && (k.cond == queries.CondNoProfile || k.cond == queries.CondProfile) && g.moments > 0 && r.rankable(k.sim) {
			seen[k.sim] = true
		}
	}
	return sortedStrings(seen)
}

func sortedStrings(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// profileOutcomes are the study judge's moves of the developers'
// profile-session moments (Study.ProfileMoves) as counted outcomes with
// only the real move: the mix the chance and majority lines are formed
// from.
func (r *Report) profileOutcomes() []analysis.Outcomes {
	out := make([]analysis.Outcomes, 0, len(r.st.ProfileMoves))
	for _, m := range r.st.ProfileMoves {
		out = append(out, analysis.Outcomes{Outcome: analysis.Outcome{Developer: m.Developer, Real: m.Move}, Count: m.Count})
	}
	return out
}

// realOutcomes are the scored points as outcomes with only the real move:
// the moves the chance and majority lines are scored on.
func (r *Report) realOutcomes() []analysis.Outcome {
	var out []analysis.Outcome
	for _, p := range r.st.Points {
		if scorable(p.Real) {
			out = append(out, analysis.Outcome{Developer: p.Developer, Real: p.Real})
		}
	}
	return out
}

// table is a figure's table: a header and rows of formatted cells.
type table struct {
	header []string
	rows   [][]string
	// markdown: the cells are Markdown, their data escaped by mdText (the
	// Markdown table only: a figure's CSV table holds plain text).
	markdown bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// figure is one drawn figure before it is written.
type figure struct {
	name, title string
	caption     string // one paragraph under the figure: what it shows and the key numbers
	pic         drawing
	table       table
	// write, when set, replaces the default writing of the picture
	// (split-summary reuses WriteSplitSummaryFigure).
	write func(dir string) ([]string, error)
	// mdRows, when set, is the table the Markdown report shows instead of
	// the full CSV table (the case study shortens its texts).
	mdTable *table
	// extra is Markdown the report shows after the table (the
	// leaderboard's between-trial spread); "" for none.
	extra string
}

type builder struct {
	name, title string
	study       string // the study the figure belongs to (Studies)
	build       func(r *Report) (*figure, error)
}

// The studies a report holds, by their --study names.
const (
	StudyUserBench = "userbench" // next-action prediction on coding sessions
	StudyFidelity  = "fidelity"  // user fidelity of tau2 episodes: probes, rubrics, verdicts, UFS
	StudyReview    = "review"    // the simulator error rate from human review
)

// studyInfo is one study of the report: its name, section title, and the
// noun the report's title uses for it.
type studyInfo struct{ name, title, noun string }

var studies = []studyInfo{
	{StudyUserBench, "UserBench: next-action prediction", "UserBench"},
	{StudyFidelity, "User fidelity", "user fidelity"},
	{StudyReview, "Simulator error rate (human review)", "human review"},
}

// Studies are the names of the report's studies, in report order.
func Studies() []string {
	out := make([]string, len(studies))
	for i, s := range studies {
		out[i] = s.name
	}
	return out
}

// builders are the figures, in report order: the UserBench study's, then
// the user-fidelity study's, then the review's.
var builders = []builder{
	{"leaderboard", "Leaderboard: macro accuracy with and without profile", StudyUserBench, (*Report).leaderboard},
	{"pairwise", "Pairwise comparison of simulators", StudyUserBench, (*Report).pairwise},
	{"profile-effect", "Profile effect per simulator", StudyUserBench, (*Report).profileEffect},
	{"move-breakdown", "Agree rate by move, with and without profile", StudyUserBench, (*Report).moveBreakdown},
	{"verbosity", "Words per message by simulator and condition", StudyUserBench, (*Report).verbosity},
	{"ablation-terse", "Terse-only ablation: spurious inquiry and critical recall", StudyUserBench, (*Report).ablationTerse},
	{"effort", "Reasoning effort: high minus low", StudyUserBench, (*Report).effort},
	{"context-scaling", "Context sweep: live-session window N", StudyUserBench, (*Report).contextScaling},
	{"history-sweep", "History sweep and substitution test", StudyUserBench, (*Report).historySweep},
	{"context-heatmap", "N x K surface", StudyUserBench, (*Report).contextHeatmap},
	{"judge-agreement", "Judge agreement (Cohen's kappa)", StudyUserBench, (*Report).judgeAgreement},
	{"split-summary", "Leak-free split: components by size", StudyUserBench, (*Report).splitSummary},
	{"case-study", "Case study: one developer, every simulator", StudyUserBench, (*Report).caseStudy},
	{"judge-coverage", "Built-in judge: calibration and risk-coverage", StudyUserBench, (*Report).judgeCoverage},
	{"probe-rates", "Judge-free probe rates per user simulator", StudyFidelity, (*Report).probeRates},
	{"reward-range", "Reward range across user simulators per domain", StudyFidelity, (*Report).rewardRange},
	{"ufs-frontier", "Cost-fidelity frontier", StudyFidelity, (*Report).ufsFrontier},
	{"reward-fidelity", "Success against user fidelity", StudyFidelity, (*Report).rewardFidelity},
	{"failure-families", "Failure families: frequency and effect on the pass rate", StudyFidelity, (*Report).failureFamilies},
	{"disclosure-rerank", "Ranks without disclosure criteria", StudyFidelity, (*Report).disclosureRerank},
	{"agent-effort", "Agent effort against UFS and reward", StudyFidelity, (*Report).agentEffort},
	{FigReviewErrorShare, "Simulator error share", StudyReview, (*Report).reviewErrorShare},
	{FigReviewCodes, "Simulator errors by code", StudyReview, (*Report).reviewCodes},
}

func lookup(name string) (builder, bool) {
	for _, b := range builders {
		if b.name == name {
			return b, true
		}
	}
	return builder{}, false
}

// FigureNames are the names of Figures, in order.
func FigureNames() []string {
	out := make([]string, len(builders))
	for i, b := range builders {
		out[i] = b.name
	}
	return out
}

// WriteFigure draws one figure into dir as NAME.svg, NAME.png and NAME.csv
// and returns their paths, sorted. A figure whose data the workspace lacks
// gives a *MissingError naming the command that makes it.
func (r *Report) WriteFigure(dir, name string) ([]string, error) {
	b, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w %q (ub report --list names them)", ErrUnknownFigure, name)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := b.build(r)
	if err != nil {
		return nil, err
	}
	f.name, f.title = b.name, b.title
	f.pic.mark = r.syntheticMark()
	return writeFigureFiles(dir, f)
}

func writeFigureFiles(dir string, f *figure) ([]string, error) {
	if f.write != nil {
		return f.write(dir)
	}
	files, err := saveDrawing(dir, f.name, f.pic)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	csvPath := filepath.Join(dir, f.name+".csv")
	if err := writeCSV(csvPath, f.table); err != nil {
		return nil, fmt.Errorf("%s: %w", f.name, err)
	}
	files = append(files, csvPath)
	sort.Strings(files)
	return files, nil
}

func writeCSV(path string, t table) error {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(t.header)
	for _, r := range t.rows {
		w.Write(r)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeAtomic(path, []byte(b.String()))
}

// CaseDeveloper returns the developer the case study follows and the
// setting whose texts it shows: among developers scored by at least two
// simulators in both conditions at the anchor, the one whose per-simulator
// profile lift varies most (largest minus smallest; ties by name), as seed
// 000 follows a developer the profile helped for some simulators and hurt
// for others. ok is false when no developer qualifies.
//
// Input.CaseDeveloper, when set, is the developer followed: ok when two
// or more of the case study's simulators scored them in both conditions.
func (r *Report) CaseDeveloper() (developer string, n, k int, ok bool) {
	lifts := map[string][]float64{}
	for _, sim := range r.caseSims() {
		with, without := r.anchor(sim, queries.CondProfile), r.anchor(sim, queries.CondNoProfile)
		if with == nil || without == nil {
			continue
		}
		p := analysis.PairedAccuracy(with, without)
		for i, d := range p.Developers {
			lifts[d] = append(lifts[d], p.Diffs[i])
		}
	}
	if want := r.in.CaseDeveloper; want != "" {
		return want, r.anchorN, r.anchorK, len(lifts[want]) >= 2
	}
	best := -1.0
	for _, d := range sortedKeysOf(lifts) {
		ls := lifts[d]
		if len(ls) < 2 {
			continue
		}
		lo, hi := ls[0], ls[0]
		for _, l := range ls {
			lo, hi = min(lo, l), max(hi, l)
		}
		if hi-lo > best {
			best, developer = hi-lo, d
		}
	}
	return developer, r.anchorN, r.anchorK, developer != ""
}

// caseSims are the simulators the case study may show: the ranked ones,
// restricted to Input.CaseSimulators when given.
func (r *Report) caseSims() []string {
	var out []string
	for _, s := range r.leaderboardSims() {
		if len(r.in.CaseSimulators) == 0 || slices.Contains(r.in.CaseSimulators, s) {
			out = append(out, s)
		}
	}
	return out
}

// SetCase gives the report the texts of the case-study developer
// (queries.LoadCaseTexts for CaseDeveloper).
func (r *Report) SetCase(ct *queries.CaseTexts) { r.caseTexts = ct }

func sortedKeysOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// macroInterval is an analysis interval as a plot interval.
func macroInterval(iv analysis.Interval) interval { return interval{iv.Mean, iv.Lo, iv.Hi} }
