package reports

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// This file is the output of `ub compare`: one simulator A against another,
// B, in one study, as a one-screen summary and as JSON.

// ub compare reads the studies StudyUserBench and StudyFidelity.

// AnchorSettings returns, for every simulator scored at the study's anchor
// setting (queries.Anchor: the leaderboard's N and K), the conditions it
// has scored moments in, sorted.
func AnchorSettings(st *queries.Study) map[string][]string {
	n, k := queries.Anchor(st.Settings)
	seen := map[string]map[string]bool{}
	for _, s := range st.Scores {
		if s.N != n || s.K != k || s.Moments == 0 {
			continue
		}
		if seen[s.Simulator] == nil {
			seen[s.Simulator] = map[string]bool{}
		}
		seen[s.Simulator][s.Condition] = true
	}
	out := map[string][]string{}
	for sim, conds := range seen {
		out[sim] = sortedStrings(conds)
	}
	return out
}

// AnchorScores returns the per-developer accuracy of sim in cond at the
// study's anchor setting, sorted by developer: hits over moments, failed
// and missing generations counting as misses, as the leaderboard scores
// them. Developers without a scored moment are left out.
func AnchorScores(st *queries.Study, sim, cond string) []analysis.DeveloperScore {
	n, k := queries.Anchor(st.Settings)
	by := map[string]*analysis.DeveloperScore{}
	for _, s := range st.Scores {
		if s.Simulator != sim || s.Condition != cond || s.N != n || s.K != k || s.Moments == 0 {
			continue
		}
		d := by[s.Developer]
		if d == nil {
			d = &analysis.DeveloperScore{Developer: s.Developer}
			by[s.Developer] = d
		}
		d.Hits += s.Hits
		d.N += s.Moments
	}
	out := make([]analysis.DeveloperScore, 0, len(by))
	for _, d := range by {
		d.Accuracy = float64(d.Hits) / float64(d.N)
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Developer < out[j].Developer })
	return out
}

// ResolveUserBench finds name among the UserBench simulators of
// AnchorSettings (simulator -> its conditions): as given, or as
// SIM@CONDITION. cond is the condition when name does not give one; ""
// means noprofile when the simulator has it, else its first. ok says the
// simulator is known; err, that it has no scored moments in the condition.
func ResolveUserBench(settings map[string][]string, name, cond string) (side Compared, ok bool, err error) {
	conds, ok := settings[name]
	if i := strings.LastIndex(name, "@"); !ok && i > 0 && slices.Contains(queries.Conditions(), name[i+1:]) {
		if conds, ok = settings[name[:i]]; ok {
			name, cond = name[:i], name[i+1:]
		}
	}
	if !ok {
		return Compared{}, false, nil
	}
	if cond == "" {
		cond = conds[0]
		if slices.Contains(conds, queries.CondNoProfile) {
			cond = queries.CondNoProfile
		}
	}
	if !slices.Contains(conds, cond) {
		return Compared{}, true, fmt.Errorf("%s has no scored moments in condition %s (it has %s)", name, cond, strings.Join(conds, ", "))
	}
	return Compared{Simulator: name, Condition: cond}, true, nil
}

// ResolveFidelity finds name among the fidelity simulators (labels of
// FidelityEpisodes): as given, or as the one label whose model part
// ("user_simulator:NAME@t1") it is.
func ResolveFidelity(sims map[string]bool, name string) (string, bool) {
	if sims[name] {
		return name, true
	}
	var hits []string
	for s := range sims {
		short := s[strings.Index(s, ":")+1:]
		if i := strings.LastIndex(short, "@"); i > 0 {
			short = short[:i]
		}
		if short == name {
			hits = append(hits, s)
		}
	}
	if len(hits) == 1 {
		return hits[0], true
	}
	return "", false
}

// Compared is one side of a comparison: a simulator and, in UserBench, the
// condition it ran in.
type Compared struct {
	Simulator string `json:"simulator"`
	Condition string `json:"condition,omitempty"`
}

func (c Compared) String() string {
	if c.Condition == "" {
		return c.Simulator
	}
	return c.Simulator + " (" + c.Condition + ")"
}

// Comparison is what `ub compare` prints.
type Comparison struct {
	Study  string // StudyUserBench or StudyFidelity
	A, B   Compared
	Scorer string // the judge (UserBench) or grader (fidelity) whose labels score both
	N, K   int    // UserBench: the prompt setting compared
	// Accuracy (UserBench) or Fidelity is the comparison; the other is nil.
	Accuracy *analysis.AccuracyPair
	Fidelity *analysis.FidelityPair
	Boot     analysis.BootstrapOptions // as resolved
	// Margin is --fail-on-regression's margin; nil when no check was asked.
	Margin *float64
	// Synthetic lists the commands that made up the workspace's data
	// (queries.Provenance); the summary then says so.
	Synthetic []queries.Origin
	// TaskSplit names the tau2 task split the fidelity comparison is
	// restricted to ("": every task).
	TaskSplit string
}

// Diff is the difference B - A the regression check reads: accuracy in
// UserBench, UFS in the fidelity study.
func (c Comparison) Diff() analysis.BootInterval {
	if c.Accuracy != nil {
		return c.Accuracy.Diff
	}
	return c.Fidelity.Pair.DiffUFS
}

// Judged is whether the data allow a regression verdict: the small-sample
// rule of the study holds (analysis.MinDevelopers developers; MinScored
// episodes and MinCommonTasks tasks) and the interval of B - A exists.
func (c Comparison) Judged() bool {
	d := c.Diff()
	if math.IsNaN(d.Lo) || math.IsNaN(d.Hi) {
		return false
	}
	if c.Accuracy != nil {
		return !c.Accuracy.Small
	}
	return c.Fidelity.Pair.Reason == ""
}

// Regressed is whether B is worse than A beyond the margin with
// confidence (analysis.Regressed); false when no check was asked or the
// comparison is not judged.
func (c Comparison) Regressed() bool {
	return c.Margin != nil && c.Judged() && analysis.Regressed(c.Diff(), *c.Margin)
}

// Verdict is the regression check's sentence: whether B is worse than A
// beyond the margin with confidence, and the bound that says so.
func (c Comparison) Verdict() string {
	d := c.Diff()
	what := "accuracy"
	if c.Fidelity != nil {
		what = "UFS"
	}
	switch {
	case c.Margin == nil:
		return ""
	case !c.Judged():
		return "not judged (see the note)"
	case c.Regressed():
		return fmt.Sprintf("B = %s is worse than A = %s in %s beyond %s with confidence (upper bound of B - A %s < %s)",
			c.B, c.A, what, f3(*c.Margin), s3(d.Hi), s3(-*c.Margin))
	}
	return fmt.Sprintf("no regression in %s beyond %s (upper bound of B - A %s >= %s)", what, f3(*c.Margin), s3(d.Hi), s3(-*c.Margin))
}

// Text is the one-screen summary.
func (c Comparison) Text() string {
	var b strings.Builder
	lv := fnum(100*c.Boot.Level, 0) + "%"
	row := func(name, a, b2, d, test string) string {
		return strings.TrimRight(fmt.Sprintf("%-9s %-24s %-24s %-26s %s", name, a, b2, d, test), " ") + "\n"
	}
	est := func(x analysis.BootInterval, signed bool) string {
		f := f3
		if signed {
			f = s3
		}
		if math.IsNaN(x.Lo) || math.IsNaN(x.Hi) {
			return f(x.Estimate)
		}
		return f(x.Estimate) + " [" + f(x.Lo) + ", " + f(x.Hi) + "]"
	}
	if a := c.Accuracy; a != nil {
		fmt.Fprintf(&b, "UserBench: A = %s, B = %s; judge %s, N = %d, K = %d\n", c.A, c.B, c.Scorer, c.N, c.K)
		fmt.Fprintf(&b, "common developers %d (moments: A %d, B %d)\n\n", a.Developers, a.MomentsA, a.MomentsB)
		b.WriteString(row("", "A", "B", "B - A ("+lv+")", "test"))
		b.WriteString(row("accuracy", est(a.A, false), est(a.B, false), est(a.Diff, true), "sign-flip p = "+pText(a.P)))
		fmt.Fprintf(&b, "\nintervals: percentile bootstrap over the common developers, B = %d, seed %d\n", c.Boot.B, c.Boot.Seed)
		if a.Small {
			fmt.Fprintf(&b, "note: fewer than %d common developers (the small-sample rule): the difference is shown, not judged\n", analysis.MinDevelopers)
		}
	} else {
		f := c.Fidelity
		p := f.Pair
		fmt.Fprintf(&b, "User fidelity: A = %s, B = %s; grader %s\n", c.A, c.B, c.Scorer)
		if c.TaskSplit != "" {
			fmt.Fprintf(&b, "only the tasks of task split %s\n", c.TaskSplit)
		}
		// The agents are those the paired episodes met: none when A and B
		// share no task, and then there is nothing to say of them.
		agent := ""
		switch {
		case p.Confounded:
			agent = "; CONFOUNDED: different agents (" + strings.Join(f.Agents, ", ") + "): success and R not compared"
		case len(f.Agents) > 0:
			agent = "; same agent " + strings.Join(f.Agents, ", ")
		}
		fmt.Fprintf(&b, "common tasks %d, paired episodes %d%s\n\n", p.Tasks, p.Pairs, agent)
		b.WriteString(row("", "A", "B", "B - A ("+lv+")", "exact McNemar (A only, B only)"))
		mc := func(m analysis.McNemar) string {
			if math.IsNaN(m.P) {
				return "n/a"
			}
			return fmt.Sprintf("p = %s (%d, %d)", pText(m.P), m.B, m.C)
		}
		b.WriteString(row("UFS", est(f.A.UFS, false), est(f.B.UFS, false), est(p.DiffUFS, true), "on f: "+mc(p.F)))
		b.WriteString(row("mean R", est(f.A.MeanR, false), est(f.B.MeanR, false), est(p.DiffR, true), "on success: "+mc(p.Success)))
		fmt.Fprintf(&b, "\nintervals: percentile bootstrap over the common tasks within domain, B = %d, seed %d\n", c.Boot.B, c.Boot.Seed)
		if p.Reason != "" {
			fmt.Fprintf(&b, "note: %s (the small-sample rule): not tested, not judged\n", p.Reason)
		}
	}
	if c.Margin != nil {
		b.WriteString("regression check: " + c.Verdict() + "\n")
	}
	if m := SyntheticMark(c.Synthetic); m != "" {
		b.WriteString("data: " + m + "\n")
	}
	return b.String()
}

// comparisonJSON is the --json document; a number that cannot be computed
// is null.
type comparisonJSON struct {
	Study      string          `json:"study"`
	A          Compared        `json:"a"`
	B          Compared        `json:"b"`
	Scorer     string          `json:"scorer"`
	N          *int            `json:"n,omitempty"`
	K          *int            `json:"k,omitempty"`
	Developers *int            `json:"developers,omitempty"`
	MomentsA   *int            `json:"moments_a,omitempty"`
	MomentsB   *int            `json:"moments_b,omitempty"`
	Tasks      *int            `json:"tasks,omitempty"`
	Pairs      *int            `json:"paired_episodes,omitempty"`
	Agents     []string        `json:"agents,omitempty"`
	Confounded *bool           `json:"confounded,omitempty"`
	Reason     string          `json:"not_tested,omitempty"`
	Metrics    []metricJSON    `json:"metrics"`
	Bootstrap  bootstrapJSON   `json:"bootstrap"`
	Judged     bool            `json:"judged"`
	Check      *regressionJSON `json:"regression_check,omitempty"`
	Synthetic  string          `json:"synthetic_data,omitempty"`
	TaskSplit  string          `json:"task_split,omitempty"`
}

type metricJSON struct {
	Metric string       `json:"metric"`
	A      intervalJSON `json:"a"`
	B      intervalJSON `json:"b"`
	Diff   intervalJSON `json:"b_minus_a"`
	Test   string       `json:"test"`
	P      *float64     `json:"p"`
	AOnly  *int         `json:"a_only,omitempty"`
	BOnly  *int         `json:"b_only,omitempty"`
}

type intervalJSON struct {
	Estimate *float64 `json:"estimate"`
	Lo       *float64 `json:"lo"`
	Hi       *float64 `json:"hi"`
}

type bootstrapJSON struct {
	B     int     `json:"replicates"`
	Seed  uint64  `json:"seed"`
	Level float64 `json:"level"`
}

type regressionJSON struct {
	Margin    float64 `json:"margin"`
	Regressed bool    `json:"regressed"`
}

func jnum(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func ivJSON(x analysis.BootInterval) intervalJSON {
	return intervalJSON{Estimate: jnum(x.Estimate), Lo: jnum(x.Lo), Hi: jnum(x.Hi)}
}

func ptr[T any](v T) *T { return &v }

// JSON is the comparison as the --json document (encoding/json encodes
// it).
func (c Comparison) JSON() any {
	o := comparisonJSON{Study: c.Study, A: c.A, B: c.B, Scorer: c.Scorer, Judged: c.Judged(),
		Bootstrap: bootstrapJSON{B: c.Boot.B, Seed: c.Boot.Seed, Level: c.Boot.Level}, Synthetic: SyntheticMark(c.Synthetic), TaskSplit: c.TaskSplit}
	if a := c.Accuracy; a != nil {
		o.N, o.K, o.Developers, o.MomentsA, o.MomentsB = ptr(c.N), ptr(c.K), ptr(a.Developers), ptr(a.MomentsA), ptr(a.MomentsB)
		o.Metrics = []metricJSON{{Metric: "accuracy", A: ivJSON(a.A), B: ivJSON(a.B), Diff: ivJSON(a.Diff), Test: "sign-flip", P: jnum(a.P)}}
	} else {
		f := c.Fidelity
		p := f.Pair
		o.Tasks, o.Pairs, o.Agents, o.Confounded, o.Reason = ptr(p.Tasks), ptr(p.Pairs), f.Agents, ptr(p.Confounded), p.Reason
		m := func(name string, a, b, d analysis.BootInterval, t analysis.McNemar) metricJSON {
			x := metricJSON{Metric: name, A: ivJSON(a), B: ivJSON(b), Diff: ivJSON(d), Test: "mcnemar-exact", P: jnum(t.P)}
			if x.P != nil {
				x.AOnly, x.BOnly = ptr(t.B), ptr(t.C)
			}
			return x
		}
		o.Metrics = []metricJSON{m("ufs", f.A.UFS, f.B.UFS, p.DiffUFS, p.F), m("mean_r", f.A.MeanR, f.B.MeanR, p.DiffR, p.Success)}
	}
	if c.Margin != nil {
		o.Check = &regressionJSON{Margin: *c.Margin, Regressed: c.Regressed()}
	}
	return o
}
