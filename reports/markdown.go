package reports

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/ub-bench/ub/queries"
)

// Skipped is a figure the report left out, and why.
type Skipped struct {
	Figure string `json:"figure"`
	Study  string `json:"study"`
	Reason string `json:"reason"`
}

// Summary is what WriteAll wrote.
type Summary struct {
	Dir     string
	Studies []string  // the studies the report holds, in report order
	Figures []string  // the figures drawn, in report order
	Skipped []Skipped // the figures left out, in report order
	Files   []string  // every file written, sorted by name
}

// built is one figure's outcome.
type built struct {
	f     *figure
	files []string
	skip  *MissingError
	err   error
}

// WriteAll writes every figure whose data the workspace has into dir (SVG,
// PNG and CSV each), the Markdown report report.md (every figure with its
// caption and table, the skipped figures with the command that makes each,
// and the methods), every other table of report.md as table-*.csv
// (tablesAsCSV) and manifest.json (versions, seeds, hashes and the
// sha256 of every other file). Figures are drawn concurrently; every output
// depends only on the study, so the same workspace gives byte-identical
// files.
func (r *Report) WriteAll(dir string) (Summary, error) {
	sum := Summary{Dir: dir}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return sum, err
	}
	out := make([]built, len(builders))
	// Each figure's error is kept in out[i] (not returned to the group), so
	// that the error reported is the first in report order, not in time.
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, b := range builders {
		if !r.selected(b.study) {
			continue // a study the workspace does not hold, or not asked for: not drawn, not listed
		}
		g.Go(func() error {
			f, err := b.build(r)
			var me *MissingError
			switch {
			case errors.As(err, &me):
				out[i].skip = me
				return nil
			case err != nil:
				out[i].err = fmt.Errorf("%s: %w", b.name, err)
				return nil
			}
			f.name, f.title = b.name, b.title
			f.pic.mark = r.syntheticMark()
			out[i].f = f
			out[i].files, out[i].err = writeFigureFiles(dir, f)
			return nil
		})
	}
	g.Wait()
	sum.Studies = r.Studies()
	for i, o := range out {
		switch {
		case o.err != nil:
			return sum, o.err
		case o.f == nil && o.skip == nil: // its study is absent from the workspace
		case o.skip != nil:
			sum.Skipped = append(sum.Skipped, Skipped{Figure: builders[i].name, Study: builders[i].study, Reason: o.skip.Reason})
		default:
			sum.Figures = append(sum.Figures, builders[i].name)
			sum.Files = append(sum.Files, o.files...)
		}
	}
	text, tables := tablesAsCSV(r.markdown(out, sum))
	if r.in.Episodes != nil {
		if err := r.in.Episodes.Err(); err != nil {
			return sum, err // a statistic went over only some of the episodes: write no report
		}
	}
	csvs, err := writeTableCSVs(dir, tables)
	if err != nil {
		return sum, err
	}
	sum.Files = append(sum.Files, csvs...)
	md := filepath.Join(dir, "report.md")
	if err := writeAtomic(md, []byte(text)); err != nil {
		return sum, err
	}
	sum.Files = append(sum.Files, md)
	man, err := r.manifest(out, sum)
	if err != nil {
		return sum, err
	}
	mp := filepath.Join(dir, "manifest.json")
	if err := writeAtomic(mp, man); err != nil {
		return sum, err
	}
	sum.Files = append(sum.Files, mp)
	sort.Strings(sum.Files)
	return sum, nil
}

// mdTable renders t as a Markdown table, every cell escaped by mdText
// unless t.markdown says its cells are Markdown already.
func mdTable(t table) string {
	var b strings.Builder
	row := func(cells []string, esc func(string) string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.header, mdText)
	b.WriteString("|" + strings.Repeat(" --- |", len(t.header)) + "\n")
	esc := mdText
	if t.markdown {
		esc = mdCell
	}
	for _, r := range t.rows {
		row(r, esc)
	}
	return b.String()
}

func (r *Report) judgeVersions() []string {
	for _, j := range r.st.Judges {
		if j.Judge == r.st.Judge {
			return j.Versions
		}
	}
	return nil
}

func (r *Report) scoredDevelopers() int {
	devs := map[string]bool{}
	for _, p := range r.st.Points {
		if scorable(p.Real) {
			devs[p.Developer] = true
		}
	}
	return len(devs)
}

// anchorID is the heading anchor GitHub makes of a title: lower case,
// punctuation dropped, spaces to hyphens.
func anchorID(title string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(title) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		case c == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// methods writes the UserBench study's methods section, in order: the
// workspace's counts, the split and the frozen point set, the judge and
// its agreement, the prompt templates and experiments, stale and unscored
// generations, the table of simulators (backend, model, prices,
// generations, failures, cost), and how the statistics are computed.
func (r *Report) methods(b *strings.Builder) {
	st := r.st
	c := st.Counts
	b.WriteString("### Methods (UserBench)\n\n")
	fmt.Fprintf(b, "- **Workspace**: %d developers, %d sessions, %d turns; %d frozen points; %d generations; %d labels.\n",
		c.Developers, c.Sessions, c.Turns, c.Points, c.Generations, c.Labels)
	if s := st.Split; s != nil {
		fmt.Fprintf(b, "- **Split**: seed %d, %s by %s, hash %s. Time split: the latest %s%% of each developer's sessions held out, at least %d. "+
			"Eligible (val and test): >= %d sessions, >= %d held-out sessions, >= %d held-out moments.\n",
			s.Seed, mdText(s.Ratios), mdText(s.Measure), mdCode(s.Hash), fnum(100*s.HeldoutFraction, 0), s.MinHeldoutSessions, s.MinSessions, s.MinHeldoutSessions, s.MinHeldoutMoments)
	} else {
		b.WriteString("- **Split**: none (run ub split).\n")
	}
	dose := 0
	for _, p := range st.Points {
		if p.ConstantDose {
			dose++
		}
	}
	if ps := st.PointSet; ps != nil {
		seed, per := "none", "all"
		if ps.Seed.Valid {
			seed = strconv.FormatInt(ps.Seed.Int64, 10)
		}
		if ps.PerDeveloper.Valid {
			per = strconv.FormatInt(ps.PerDeveloper.Int64, 10)
		}
		fmt.Fprintf(b, "- **Points**: %d (%s, seed %s, up to %s per developer), hash %s; %d in the constant-dose subset (>= 10 prior turns).\n",
			len(st.Points), mdText(ps.Source), seed, per, mdCode(ps.Hash), dose)
	} else {
		b.WriteString("- **Points**: none frozen (run ub points).\n")
	}
	labelled := 0
	for _, p := range st.Points {
		if scorable(p.Real) {
			labelled++
		}
	}
	fmt.Fprintf(b, "- **Judge**: %s, version %s; %d of %d real messages labelled and scorable.", mdCode(st.Judge), quoteList(r.judgeVersions()), labelled, len(st.Points))
	if len(st.Judges) > 1 {
		var others []string
		for _, j := range st.Judges {
			if j.Judge != st.Judge {
				others = append(others, fmt.Sprintf("%s (%d labels)", mdCode(j.Judge), j.Total()))
			}
		}
		fmt.Fprintf(b, " Other judges: %s.", strings.Join(others, ", "))
	}
	b.WriteString("\n")
	r.judgeMethods(b)
	fmt.Fprintf(b, "- **Prompt**: leaderboard setting %s. Templates:", r.anchorText())
	if len(st.Prompts) == 0 {
		b.WriteString(" none.")
	}
	for i, p := range st.Prompts {
		sep := ";"
		if i == 0 {
			sep = ""
		}
		name := p.Name
		if name == "" {
			name = "unrecorded"
		}
		fmt.Fprintf(b, "%s %s (%s, %s, %d generations)", sep, mdCode(p.Version), mdText(name), mdText(p.Condition), p.Generations)
	}
	b.WriteString(".\n")
	if len(st.Experiments) > 0 {
		var ex []string
		for _, e := range st.Experiments {
			name := e.Experiment
			if name == "" {
				name = "unnamed"
			}
			ex = append(ex, fmt.Sprintf("%s (%d generations)", mdCode(name), e.Generations))
		}
		fmt.Fprintf(b, "- **Experiments**: %s.\n", strings.Join(ex, ", "))
	}
	if st.StaleGenerations > 0 {
		fmt.Fprintf(b, "- **Not scored**: %d generations at points no longer frozen.\n", st.StaleGenerations)
	}
	if r.unscoredPoints > 0 {
		fmt.Fprintf(b, "- **Not scored**: %d points whose real message judge %s has not labelled (or could not read).\n", r.unscoredPoints, mdCode(st.Judge))
	}
	b.WriteString("\n#### Simulators\n\n")
	t := table{header: []string{"simulator", "backend", "model", "params", "price_in", "price_out", "generations", "failed", "missing", "unlabelled", "tokens_out_mean", "cost_usd"}}
	type tot struct {
		gens, failed, miss, unl, tout int
		cost                          float64
	}
	tots := map[string]*tot{}
	for k, g := range r.groups {
		x := tots[k.sim]
		if x == nil {
			x = &tot{}
			tots[k.sim] = x
		}
		x.gens += g.generations
		x.failed += g.failed
		x.miss += g.missing
		x.unl += g.unlabelled
		x.tout += g.tokensOut
		x.cost += g.cost
	}
	var costs []float64
	for _, s := range st.Simulators {
		x := tots[s.Name]
		if x == nil {
			x = &tot{}
		}
		mean := "n/a"
		if x.gens > 0 {
			mean = f1(float64(x.tout) / float64(x.gens))
		}
		costs = append(costs, x.cost)
		t.add(s.Name, s.Backend, s.Model, canonicalJSON(s.Params), nullNum(s.PriceIn), nullNum(s.PriceOut), strconv.Itoa(x.gens), strconv.Itoa(x.failed), strconv.Itoa(x.miss), strconv.Itoa(x.unl), mean, fnum(x.cost, 2))
	}
	b.WriteString(mdTable(t))
	b.WriteString(`
#### Statistics

- A developer's **accuracy** is the share of their scored moments where the simulator's move equals the real move (same judge on both). The **headline** is the macro mean over developers, with the 95% interval mean +/- t(0.975, n-1) sd / sqrt(n) (ci) and the 95% percentile bootstrap interval resampling developers with replacement (boot; Efron & Tibshirani 1993, section 13.3; B and seed in the leaderboard's caption, ` + "`ub report --bootstrap --bootstrap-seed`" + `).
- **Pairwise comparison** of two simulators in a condition: on the developers both scored, the mean per-developer difference in accuracy with its developer bootstrap interval, and the two-sided sign-flip permutation test over developers (Fisher 1935; exact up to 16 non-zero differences, else 9,999 seeded sign patterns with p = (1 + hits) / (B + 1), Phipson & Smyth 2010). The test is over developers, not moments, because the headline is a mean over developers and one developer's moments are not independent. p values are Holm-adjusted (Holm 1979) over the condition's pairs; the **top cluster** is the highest simulator with every one whose Holm-adjusted p against it is at least 0.05.
- **Small samples**: a simulator in a condition with fewer than 10 scored developers is shown with its n but left out of the pairwise comparisons and the top cluster, with a note naming it (below about ten clusters, cluster-resampling intervals undercover: Cameron, Gelbach & Miller 2008).
- The **chance and majority lines** are formed from each developer's profile sessions (the judge's moves of their moments there; ` + "`ub judge --target profile`" + `), data the scoring never sees, and scored on the held-out moments: chance_d = sum_m p_d(m) q_d(m), the expected accuracy of sampling the move from the profile mix p against the held-out mix q; majority_d = q_d of the profile's most frequent move; each averaged over developers. Beside the chance line, the seed's reading: the collision probability sum_m q_d(m)^2 of the scored moments' own mix, averaged over the same developers (in sample, so lifted by about (1 - sum q^2) / n per developer of n moments). Developers without a labelled profile-session moment are left out and counted.
- **Terse-only recovery** = (acc terse - acc without) / (acc with - acc without), macro means over the developers scored in all three, with a developer bootstrap interval; printed only when the profile gain's bootstrap interval excludes zero, otherwise "not estimable".
- **Paired effects** (profile, reasoning effort, sweep settings against their anchor) are per-developer differences with the paired t test (t = mean / (sd / sqrt(n)) on n - 1 df) and its 95% interval; developers missing from one side are left out and counted.
- **Per-move agree rates** are pooled over moments (the recall of each real move). **Spurious inquiry** is the share of moments without a real question where the simulator asked one; **critical recall** the share of real faults the simulator flagged.
- **Verbosity** counts words as runs of non-space characters.
- **Sweeps**: each view's tests against its anchor (context: every N against N = 14; history and substitution: every K against K = 0; surface: each N's history effect and the interaction) are one family: the tables give Holm-adjusted p beside the raw p and the number of tests.
- **Context sweep**: r is Pearson's correlation of ln N with macro accuracy over the settings; the constant-dose view keeps moments with at least 10 prior turns, so every N up to 10 shows exactly N turns. **History sweep**: r of ln(1 + K). **Surface**: per N, K_max minus K_min paired per developer; the interaction is the per-developer difference in differences between the smallest and largest N.
- **Judge agreement**: Cohen's kappa with the large-sample standard error of Fleiss, Cohen & Everitt (1969).
- A failed generation, or a missing one (a point with no generation in a setting), scores as a miss; a generation the judge has not labelled is left out and counted in the tables.
`)
}

func quoteList(vs []string) string {
	if len(vs) == 0 {
		return "unrecorded"
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		if v == "" {
			v = "unrecorded"
		}
		out[i] = mdCode(v)
	}
	return strings.Join(out, ", ")
}

// canonicalJSON re-encodes a JSON object with sorted keys; other text is
// returned as is.
func canonicalJSON(s string) string {
	var v any
	if s == "" || json.Unmarshal([]byte(s), &v) != nil {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return s
	}
	return string(b)
}

func nullNum(v sql.NullFloat64) string {
	if !v.Valid {
		return ""
	}
	return strconv.FormatFloat(v.Float64, 'f', -1, 64)
}

// manifest is manifest.json.
type manifest struct {
	Generator     string              `json:"generator"`
	UB            Build               `json:"ub"`
	Synthetic     []manifestOrigin    `json:"synthetic"` // the commands that made the data up; empty for measured data
	Studies       []string            `json:"studies"`   // the studies the report holds
	SchemaVersion int                 `json:"schema_version"`
	Judge         manifestJudge       `json:"judge"`
	Anchor        map[string]int      `json:"anchor"`
	Split         *manifestSplit      `json:"split"`
	Points        *manifestPoints     `json:"points"`
	Prompts       []manifestPrompt    `json:"prompt_versions"`
	Experiments   []manifestExp       `json:"experiments"`
	Simulators    []manifestSimulator `json:"simulators"`
	Counts        queries.StudyCounts `json:"counts"`
	Figures       []manifestFigure    `json:"figures"`
	Skipped       []Skipped           `json:"skipped"`
	Files         map[string]string   `json:"files"` // base name -> hex sha256
}

type manifestOrigin struct {
	Maker  string `json:"maker"`
	Detail string `json:"detail"`
}

type manifestJudge struct {
	Name     string   `json:"name"`
	Versions []string `json:"versions"`
}

type manifestSplit struct {
	Seed    int64  `json:"seed"`
	Ratios  string `json:"ratios"`
	Measure string `json:"measure"`
	Hash    string `json:"hash"`
}

type manifestPoints struct {
	Seed         *int64 `json:"seed"`
	PerDeveloper *int64 `json:"per_developer"`
	Source       string `json:"source"`
	Hash         string `json:"hash"`
	Count        int    `json:"count"`
}

type manifestPrompt struct {
	Version     string `json:"version"`
	Name        string `json:"name"`
	Condition   string `json:"condition"`
	Generations int    `json:"generations"`
}

type manifestExp struct {
	Name        string `json:"name"`
	Generations int    `json:"generations"`
}

type manifestSimulator struct {
	Name     string          `json:"name"`
	Backend  string          `json:"backend"`
	Model    string          `json:"model"`
	Params   json.RawMessage `json:"params"`
	PriceIn  *float64        `json:"price_in"`
	PriceOut *float64        `json:"price_out"`
}

type manifestFigure struct {
	Name  string   `json:"name"`
	Files []string `json:"files"`
}

func (r *Report) manifest(out []built, sum Summary) ([]byte, error) {
	st := r.st
	m := manifest{
		Generator: "ub report",
		UB:        r.in.Build,
		Synthetic: []manifestOrigin{},
		Studies:   append([]string{}, sum.Studies...),
		Judge:     manifestJudge{Name: st.Judge, Versions: r.judgeVersions()},
		Anchor:    map[string]int{"window_n": r.anchorN, "history_k": r.anchorK},
		Counts:    st.Counts,
		Skipped:   sum.Skipped,
		Files:     map[string]string{},
	}
	for _, o := range r.in.Synthetic {
		m.Synthetic = append(m.Synthetic, manifestOrigin{o.Maker, o.Detail})
	}
	if ms, err := queries.Migrations(); err == nil && len(ms) > 0 {
		m.SchemaVersion = ms[len(ms)-1].Version
	}
	if s := st.Split; s != nil {
		m.Split = &manifestSplit{Seed: s.Seed, Ratios: s.Ratios, Measure: s.Measure, Hash: s.Hash}
	}
	if ps := st.PointSet; ps != nil {
		mp := &manifestPoints{Source: ps.Source, Hash: ps.Hash, Count: len(st.Points)}
		if ps.Seed.Valid {
			mp.Seed = &ps.Seed.Int64
		}
		if ps.PerDeveloper.Valid {
			mp.PerDeveloper = &ps.PerDeveloper.Int64
		}
		m.Points = mp
	}
	for _, p := range st.Prompts {
		m.Prompts = append(m.Prompts, manifestPrompt{p.Version, p.Name, p.Condition, p.Generations})
	}
	for _, e := range st.Experiments {
		m.Experiments = append(m.Experiments, manifestExp{e.Experiment, e.Generations})
	}
	for _, s := range st.Simulators {
		ms := manifestSimulator{Name: s.Name, Backend: s.Backend, Model: s.Model, Params: json.RawMessage("null")}
		if p := canonicalJSON(s.Params); p != "" && json.Valid([]byte(p)) {
			ms.Params = json.RawMessage(p)
		}
		if s.PriceIn.Valid {
			ms.PriceIn = &s.PriceIn.Float64
		}
		if s.PriceOut.Valid {
			ms.PriceOut = &s.PriceOut.Float64
		}
		m.Simulators = append(m.Simulators, ms)
	}
	for i, o := range out {
		if o.f == nil {
			continue
		}
		mf := manifestFigure{Name: builders[i].name}
		for _, p := range o.files {
			mf.Files = append(mf.Files, filepath.Base(p))
		}
		m.Figures = append(m.Figures, mf)
	}
	for _, p := range sum.Files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		h := sha256.Sum256(b)
		m.Files[filepath.Base(p)] = hex.EncodeToString(h[:])
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
