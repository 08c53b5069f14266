package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/duckdb/duckdb-go/v2"
)

// StudyPoint is one frozen point as the report scores it.
type StudyPoint struct {
	ID, Developer, SessionID string
	TurnIdx, PriorTurns      int
	ConstantDose             bool
	// Real is the move the study's judge gave the real developer message;
	// "" when that judge has not labelled it.
	Real string
	// Words is the real message's length in words (Words); -1 when its
	// turn is missing.
	Words int
}

// StudyGeneration is one generation at a frozen point.
type StudyGeneration struct {
	Point                int // index of its point in Study.Points
	Simulator, Condition string
	N, K                 int    // live window and history length
	Move                 string // the judge's move; "" when unlabelled
	Failed               bool   // an error, or no text
	Words                int    // length of the text in words, as StudyPoint.Words
	TokensIn, TokensOut  int
	Cost                 float64 // USD
	Trial                int     // the generation's trial, from 0 (generations.trial)
}

// StudySetting is one setting (a simulator in a condition at live window N
// and history K) with generations at frozen points, and their totals.
type StudySetting struct {
	Simulator, Condition string
	N, K                 int
	Generations          int
	TokensOut            int
	Cost                 float64 // USD
	// Trials is the setting's number of trials, k: the highest trial
	// index of its generations plus one. Every scorable point is scored
	// k times (StudyScores); 1 for a single-trial study.
	Trials int
}

// The default prompt setting: the leaderboard's live window N and history
// K (SPEC section 5).
const (
	DefaultN = 14
	DefaultK = 0
)

// Anchor returns the setting (N, K) the leaderboard and the report's
// per-simulator figures score: DefaultN, DefaultK when any profile or
// no-profile generation has it, else the (N, K) with the most such
// generations (ties: the smaller N, then K). LoadStudy reads lengths at
// this setting only; reports.Prepare anchors the report on it.
func Anchor(settings []StudySetting) (n, k int) {
	count := map[[2]int]int{}
	for _, s := range settings {
		if s.Condition == CondProfile || s.Condition == CondNoProfile {
			count[[2]int{s.N, s.K}] += s.Generations
		}
	}
	n, k = DefaultN, DefaultK
	if count[[2]int{n, k}] > 0 {
		return n, k
	}
	pairs := make([][2]int, 0, len(count))
	for nk := range count {
		pairs = append(pairs, nk)
	}
	sort.Slice(pairs, func(i, j int) bool {
		if pairs[i][0] != pairs[j][0] {
			return pairs[i][0] < pairs[j][0]
		}
		return pairs[i][1] < pairs[j][1]
	})
	best := -1
	for _, nk := range pairs {
		if count[nk] > best {
			best, n, k = count[nk], nk[0], nk[1]
		}
	}
	return n, k
}

// StudyOutcomes counts the moments (StudyScores) of one setting and
// developer with one real move and move generated: a scored moment (a
// generation the judge labelled) has the judge's move as Generated, a
// failed or missing one "". Generations the judge has not labelled are not
// moments. LoadStudy reads them at the Anchor setting only.
type StudyOutcomes struct {
	Simulator, Condition       string
	N, K                       int
	Developer, Real, Generated string
	Count                      int
}

// StudyScores counts the moments of one setting and developer as
// StudyOutcomes does, without their moves: whether the generated move was
// the real one is all the accuracy statistics read, so LoadStudy reads
// these at every setting and the moves (StudyOutcomes) at the Anchor
// setting only.
type StudyScores struct {
	Simulator, Condition  string
	N, K                  int
	Developer             string
	Hits                  int // scored moments whose generated move is the real move
	Moments               int // scored, failed and missing moments
	DoseHits, DoseMoments int // the same at constant-dose points
	Failed, Missing       int // moments of these kinds
	Unlabelled            int // generations the judge has not labelled (not moments)
}

// StudyTrialScores counts the moments of one setting, developer and trial
// as StudyScores does for all trials together. LoadStudy reads them at the
// Anchor setting only, for the settings with more than one trial
// (study_trial_scores.sql).
type StudyTrialScores struct {
	Simulator, Condition string
	N, K                 int
	Developer            string
	Trial                int // from 0
	Hits, Moments        int
}

// StudyTrialPoints counts the scorable points of one setting at which
// Trials trials were counted (scored or failed; at least two), Hits of
// them hits, and whose generated moves differ among those trials
// (Disagree) or not. LoadStudy reads them at the Anchor setting only, for
// the settings with more than one trial (study_trial_points.sql).
type StudyTrialPoints struct {
	Simulator, Condition string
	N, K                 int
	Trials, Hits         int
	Disagree             bool
	Count                int
}

// StudyLengthWords counts the generations with text of one setting that
// are Words words long (Words). LoadStudy reads them at the Anchor setting
// only, where the report draws them.
type StudyLengthWords struct {
	Simulator, Condition string
	N, K                 int
	Words, Count         int
}

// StudyLengthDeveloper counts the generations with text of one setting and
// developer, Count of them with Words words in all. LoadStudy reads them at
// the Anchor setting only, beside StudyLengthWords.
type StudyLengthDeveloper struct {
	Simulator, Condition string
	N, K                 int
	Developer            string
	Count, Words         int
}

// StudyProfileMove counts the profile-session moments of one developer
// that the study's judge labelled Move.
type StudyProfileMove struct {
	Developer, Move string
	Count           int
}

// StudySimulator is one row of the simulators table.
type StudySimulator struct {
	Name, Backend, Model string
	Params               string // the params JSON as stored; "" for none
	PriceIn, PriceOut    sql.NullFloat64
	BatchDiscount        sql.NullFloat64
}

// JudgeCount is what one judge labelled.
type JudgeCount struct {
	Judge                      string
	Points, Generations, Other int
	Versions                   []string // distinct prompt or weights versions, sorted ("" when unrecorded)
}

// Total is every label of the judge.
func (j JudgeCount) Total() int { return j.Points + j.Generations + j.Other }

// PromptVersion counts the generations made with one template version in
// one condition.
type PromptVersion struct {
	Version, Name, Condition string
	Generations              int
}

// ExperimentCount counts the generations of one experiment.
type ExperimentCount struct {
	Experiment  string
	Generations int
}

// AgreementCount is one cell of a judge pair's confusion matrix: N targets
// of kind Target that JudgeA labelled MoveA and JudgeB labelled MoveB.
type AgreementCount struct {
	JudgeA, JudgeB, Target, MoveA, MoveB string
	N                                    int
}

// StudyCounts are the workspace's totals.
type StudyCounts struct {
	Developers  int `json:"developers"`
	Sessions    int `json:"sessions"`
	Turns       int `json:"turns"`
	Points      int `json:"points"`
	Generations int `json:"generations"`
	Labels      int `json:"labels"`
}

// Study is everything the report reads from a workspace, for one judge.
type Study struct {
	Judge  string
	Points []StudyPoint // by developer, then id
	// Generations, when set, are the study's generations one by one (tests
	// build small studies so); LoadStudy leaves it nil and fills Settings,
	// Scores, Outcomes, LengthWords and LengthDevelopers, the same study
	// aggregated in DuckDB.
	Generations      []StudyGeneration
	Settings         []StudySetting         // by simulator, condition, N, K
	Scores           []StudyScores          // by setting, developer
	Outcomes         []StudyOutcomes        // by setting, developer, real, generated; LoadStudy: at the Anchor (N, K) only
	LengthWords      []StudyLengthWords     // by setting, words; LoadStudy: at the Anchor (N, K) only
	LengthDevelopers []StudyLengthDeveloper // by setting, developer; LoadStudy: at the Anchor (N, K) only
	Simulators       []StudySimulator       // by name
	// TrialScores and TrialPoints are the trials of the settings with more
	// than one, apart (at the Anchor (N, K) only): by setting, developer,
	// trial, and by setting, trials, hits, disagree. Empty for a
	// single-trial study.
	TrialScores []StudyTrialScores
	TrialPoints []StudyTrialPoints
	// ProfileMoves counts the study judge's moves of the moments of each
	// developer's profile sessions (study_profile_moves.sql), by developer
	// and move: the mix the chance and majority lines are formed from.
	ProfileMoves []StudyProfileMove
	Judges       []JudgeCount // by judge
	Prompts      []PromptVersion
	Experiments  []ExperimentCount
	Agreement    []AgreementCount
	Counts       StudyCounts
	Split        *SplitRun // nil when no split was made
	PointSet     *PointSet // nil when no points were frozen
	// StaleGenerations counts generations whose point is no longer frozen
	// (made before ub points drew again); they are not scored.
	StaleGenerations int
}

// StudyEmpty reports whether the workspace holds no sessions, generations,
// labels or simulators.
func StudyEmpty(ctx context.Context, db Querier) (bool, error) {
	var empty bool
	err := db.QueryRowContext(ctx, q("study_empty")).Scan(&empty)
	return empty, err
}

// StudyJudges lists every judge with what it labelled.
func StudyJudges(ctx context.Context, db Querier) ([]JudgeCount, error) {
	rows, err := db.QueryContext(ctx, q("study_judges"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []JudgeCount
	for rows.Next() {
		var j JudgeCount
		var versions []any
		if err := rows.Scan(&j.Judge, &j.Points, &j.Generations, &j.Other, &versions); err != nil {
			return nil, err
		}
		for _, v := range versions {
			s, _ := v.(string)
			j.Versions = append(j.Versions, s)
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// LoadStudy reads the study of the workspace as scored by judge: the frozen
// points with the judge's label of each real message, the generations at
// those points aggregated per setting (totals, scored moments by
// developer; by developer and move, and lengths, at the Anchor setting
// only; no generation is read one by one, so the memory grows with
// developers and settings, not generations), the simulators, what every
// judge labelled and where two judges overlap, the prompt versions, the
// split and point set in force, and the totals. The generations are joined
// to judge's labels once, into temporary tables (studyCells) that the
// aggregate queries read and LoadStudy drops before it returns.
func LoadStudy(ctx context.Context, db Querier, judge string) (*Study, error) {
	st := &Study{Judge: judge}
	drop, err := studyCells(ctx, db, judge)
	if err != nil {
		return nil, fmt.Errorf("load generations: %w", err)
	}
	if st.Points, err = studyPoints(ctx, db); err != nil {
		drop()
		return nil, fmt.Errorf("load points: %w", err)
	}
	err = studyAggregates(ctx, db, judge, st)
	if err == nil {
		err = db.QueryRowContext(ctx, q("study_stale_generations")).Scan(&st.StaleGenerations)
	}
	if derr := drop(); err == nil {
		err = derr
	}
	if err != nil {
		return nil, fmt.Errorf("load generations: %w", err)
	}
	if st.Simulators, err = studySimulators(ctx, db); err != nil {
		return nil, fmt.Errorf("load simulators: %w", err)
	}
	if err := scanAll(ctx, db, "study_profile_moves", []any{judge}, func(rows *sql.Rows) error {
		var m StudyProfileMove
		if err := rows.Scan(&m.Developer, &m.Move, &m.Count); err != nil {
			return err
		}
		st.ProfileMoves = append(st.ProfileMoves, m)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load profile moves: %w", err)
	}
	if st.Judges, err = StudyJudges(ctx, db); err != nil {
		return nil, fmt.Errorf("load judges: %w", err)
	}
	if err := scanAll(ctx, db, "study_prompts", nil, func(rows *sql.Rows) error {
		var p PromptVersion
		if err := rows.Scan(&p.Version, &p.Name, &p.Condition, &p.Generations); err != nil {
			return err
		}
		st.Prompts = append(st.Prompts, p)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load prompt versions: %w", err)
	}
	if err := scanAll(ctx, db, "study_experiments", nil, func(rows *sql.Rows) error {
		var e ExperimentCount
		if err := rows.Scan(&e.Experiment, &e.Generations); err != nil {
			return err
		}
		st.Experiments = append(st.Experiments, e)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("load experiments: %w", err)
	}
	// Every pair of judges, in the order of their names (StudyJudges).
	for i, a := range st.Judges {
		for _, b := range st.Judges[i+1:] {
			if err := scanAll(ctx, db, "study_agreement_pair", []any{a.Judge, b.Judge}, func(rows *sql.Rows) error {
				x := AgreementCount{JudgeA: a.Judge, JudgeB: b.Judge}
				if err := rows.Scan(&x.Target, &x.MoveA, &x.MoveB, &x.N); err != nil {
					return err
				}
				st.Agreement = append(st.Agreement, x)
				return nil
			}); err != nil {
				return nil, fmt.Errorf("load judge agreement: %w", err)
			}
		}
	}
	c := &st.Counts
	if err := db.QueryRowContext(ctx, q("study_counts")).Scan(&c.Developers, &c.Sessions, &c.Turns,
		&c.Points, &c.Generations, &c.Labels); err != nil {
		return nil, err
	}
	run, err := GetSplitRun(ctx, db)
	switch {
	case errors.Is(err, ErrNoSplit):
	case err != nil:
		return nil, err
	default:
		st.Split = &run
	}
	set, ok, err := GetPointSet(ctx, db)
	if err != nil {
		return nil, err
	}
	if ok {
		st.PointSet = &set
	}
	return st, nil
}

// scanAll runs the named query with args and calls fn for every row.
func scanAll(ctx context.Context, db Querier, name string, args []any, fn func(*sql.Rows) error) error {
	rows, err := db.QueryContext(ctx, q(name), args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// scanNumbered reads the rows of query name, numbered 1, 2, ... in their
// first column and in that order (what names them in the error otherwise):
// element n-1 of the result holds the other columns of row n, scanned into
// the addresses cols gives.
func scanNumbered[T any](ctx context.Context, db Querier, name, what string, cols func(*T) []any) ([]T, error) {
	var out []T
	err := scanAll(ctx, db, name, nil, func(rows *sql.Rows) error {
		var x T
		var n int
		if err := rows.Scan(append([]any{&n}, cols(&x)...)...); err != nil {
			return err
		}
		if n != len(out)+1 {
			return fmt.Errorf("%s %d out of order", what, n)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// studyPoints reads the frozen points of the temporary tables of
// studyCells.
func studyPoints(ctx context.Context, db Querier) ([]StudyPoint, error) {
	var out []StudyPoint
	in := interner{}
	var dev, real sql.RawBytes
	var text sql.NullString
	var total int
	err := scanAll(ctx, db, "study_points", nil, func(rows *sql.Rows) error {
		var p StudyPoint
		if err := rows.Scan(&p.ID, &dev, &p.SessionID, &p.TurnIdx, &p.PriorTurns, &p.ConstantDose, &real, &text, &total); err != nil {
			return err
		}
		if out == nil {
			out = make([]StudyPoint, 0, total)
		}
		p.Developer, p.Real = in.of(dev), in.of(real)
		p.Words = -1
		if text.Valid {
			p.Words = Words(text.String)
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// Words is the one word counter of ub: the number of maximal runs of
// characters that are not Unicode white space (unicode.IsSpace: ASCII
// space, \t \n \v \f \r, U+0085, U+00A0 no-break space, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000). U+00A0 occurs in
// the real corpus between words. It takes text or raw bytes (the loader
// counts sql.RawBytes without copying them); invalid UTF-8 counts as
// non-space.
func Words[T ~string | ~[]byte](s T) int {
	n, in := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = c == ' ' || ('\t' <= c && c <= '\r')
			i++
		} else {
			r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			space = unicode.IsSpace(r)
			i += size
		}
		switch {
		case space:
			in = false
		case !in:
			n++
			in = true
		}
	}
	return n
}

// wordsFunc is Words as the DuckDB scalar function ub_words(VARCHAR) ->
// BIGINT (NULL for NULL), so that SQL counts words with the one word
// counter of ub, next to the data: migration 0010 fills generations.words
// with it, and study_cells_words counts the texts of generations written
// without their words. It is about ten times faster than a regular
// expression (2.3 million texts: 4 s against 50 s on a loaded 2-core
// machine). Open registers it on every workspace.
type wordsFunc struct{}

func (wordsFunc) Config() duckdb.ScalarFuncConfig {
	in, _ := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	out, _ := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	return duckdb.ScalarFuncConfig{InputTypeInfos: []duckdb.TypeInfo{in}, ResultTypeInfo: out}
}

func (wordsFunc) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowExecutor: func(values []driver.Value) (any, error) {
		s, ok := values[0].(string)
		if !ok {
			return nil, fmt.Errorf("ub_words: %T is not text", values[0])
		}
		return int64(Words(s)), nil
	}}
}

// registerWords makes ub_words (wordsFunc) known to the database of db,
// once: a function registered on one connection is in the catalog of every
// connection to that database.
func registerWords(ctx context.Context, db Querier) error {
	// Registered already when this process opened the same workspace
	// before (DuckDB shares the instance); otherwise the call fails to bind.
	var known bool
	err := db.QueryRowContext(ctx, q("study_words_registered")).Scan(&known)
	if err == nil {
		return nil
	}
	if !strings.HasPrefix(err.Error(), "Catalog Error") && !strings.HasPrefix(err.Error(), "Binder Error") {
		return fmt.Errorf("register ub_words: %w", err)
	}
	c, ok := db.(*sql.Conn)
	if !ok {
		return fmt.Errorf("register ub_words: %T is not a *sql.Conn", db)
	}
	return duckdb.RegisterScalarUDF(c, "ub_words", wordsFunc{})
}

// interner keeps one copy of each repeated string (simulator, condition,
// move), so that a large study's rows share their text.
type interner map[string]string

func (in interner) of(b []byte) string {
	if s, ok := in[string(b)]; ok {
		return s
	}
	s := string(b)
	in[s] = s
	return s
}

// str is of for a string.
func (in interner) str(s string) string {
	if c, ok := in[s]; ok {
		return c
	}
	in[s] = s
	return s
}

// LoadGenerations reads every generation at the frozen points, one by one,
// with judge's label; points are the study's Points (LoadStudy), which the
// generations index. LoadStudy does not call it: at scale the generations
// do not fit in memory, and the report needs only their aggregates. It is
// for studies examined generation by generation (tests, variants of a
// small study).
func LoadGenerations(ctx context.Context, db Querier, judge string, points []StudyPoint) ([]StudyGeneration, error) {
	index := make(map[string]int, len(points))
	for i, p := range points {
		index[p.ID] = i
	}
	in := interner{}
	var out []StudyGeneration
	var pid, sim, cond, move, text sql.RawBytes
	err := scanAll(ctx, db, "study_generations", []any{judge}, func(rows *sql.Rows) error {
		var g StudyGeneration
		if err := rows.Scan(&pid, &sim, &cond, &g.N, &g.K, &move, &g.Failed, &text, &g.TokensIn, &g.TokensOut, &g.Cost, &g.Trial); err != nil {
			return err
		}
		g.Words = Words(text)
		i, ok := index[string(pid)]
		if !ok {
			return fmt.Errorf("generation at point %s, which the points query did not return", pid)
		}
		g.Point = i
		g.Simulator, g.Condition, g.Move = in.of(sim), in.of(cond), in.of(move)
		out = append(out, g)
		return nil
	})
	return out, err
}

// studyCells makes the temporary tables that studyPoints and
// studyAggregates read: the frozen points numbered, with judge's label of
// each real message (study_cells_points), the settings numbered, with
// their totals (study_cells_settings), and the words of generations
// written without them (study_cells_words); studyAggregates adds the
// generations joined to judge's labels (study_cells). drop drops them all.
func studyCells(ctx context.Context, db Querier, judge string) (drop func() error, err error) {
	drop = func() error {
		if _, err := db.ExecContext(ctx, q("study_cells_drop")); err != nil {
			return fmt.Errorf("study_cells_drop: %w", err)
		}
		return nil
	}
	for _, step := range []struct {
		name string
		args []any
	}{{"study_cells_words", nil}, {"study_cells_points", []any{judge}}, {"study_cells_settings", nil}} {
		if _, err := db.ExecContext(ctx, q(step.name), step.args...); err != nil {
			drop()
			return nil, fmt.Errorf("%s: %w", step.name, err)
		}
	}
	return drop, nil
}

// studyAggregates fills st's Settings, Scores, and Outcomes, TrialScores,
// TrialPoints, LengthWords and LengthDevelopers at the Anchor setting: it joins the generations at
// frozen points to judge's labels once, into a temporary table
// (study_cells) that the aggregate queries read. They give settings and
// developers by number (the temporary tables of studyCells): they are
// resolved here to names.
func studyAggregates(ctx context.Context, db Querier, judge string, st *Study) error {
	settings, err := scanNumbered(ctx, db, "study_settings", "setting", func(x *StudySetting) []any {
		return []any{&x.Simulator, &x.Condition, &x.N, &x.K, &x.Generations, &x.TokensOut, &x.Cost, &x.Trials}
	})
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	st.Settings = settings
	n, k := Anchor(st.Settings)
	if _, err := db.ExecContext(ctx, q("study_cells"), judge, n, k); err != nil {
		return fmt.Errorf("study_cells: %w", err)
	}
	devs, err := scanNumbered(ctx, db, "study_developers", "developer", func(d *string) []any { return []any{d} })
	if err != nil {
		return fmt.Errorf("developers: %w", err)
	}
	// at resolves the numbers of a setting and a developer (0: none).
	at := func(set, dev int) (*StudySetting, string, error) {
		if set < 1 || set > len(settings) || dev < 0 || dev > len(devs) {
			return nil, "", fmt.Errorf("setting %d or developer %d unknown", set, dev)
		}
		if dev == 0 {
			return &settings[set-1], "", nil
		}
		return &settings[set-1], devs[dev-1], nil
	}
	var set, dev int
	st.Scores = make([]StudyScores, 0, len(settings)*len(devs))
	err = scanAll(ctx, db, "study_scores", nil, func(rows *sql.Rows) error {
		var x StudyScores
		if err := rows.Scan(&set, &dev, &x.Hits, &x.Moments, &x.DoseHits, &x.DoseMoments,
			&x.Failed, &x.Missing, &x.Unlabelled); err != nil {
			return err
		}
		s, d, err := at(set, dev)
		if err != nil {
			return err
		}
		x.Simulator, x.Condition, x.N, x.K, x.Developer = s.Simulator, s.Condition, s.N, s.K, d
		st.Scores = append(st.Scores, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("scores: %w", err)
	}
	in := interner{}
	var real, gen sql.RawBytes
	var total int
	err = scanAll(ctx, db, "study_outcomes", []any{n, k}, func(rows *sql.Rows) error {
		var x StudyOutcomes
		if err := rows.Scan(&set, &dev, &real, &gen, &x.Count, &total); err != nil {
			return err
		}
		s, d, err := at(set, dev)
		if err != nil {
			return err
		}
		if st.Outcomes == nil {
			st.Outcomes = make([]StudyOutcomes, 0, total)
		}
		x.Simulator, x.Condition, x.N, x.K, x.Developer = s.Simulator, s.Condition, s.N, s.K, d
		x.Real, x.Generated = in.of(real), in.of(gen)
		st.Outcomes = append(st.Outcomes, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("outcomes: %w", err)
	}
	err = scanAll(ctx, db, "study_trial_scores", []any{n, k}, func(rows *sql.Rows) error {
		var x StudyTrialScores
		if err := rows.Scan(&set, &dev, &x.Trial, &x.Hits, &x.Moments); err != nil {
			return err
		}
		s, d, err := at(set, dev)
		if err != nil {
			return err
		}
		x.Simulator, x.Condition, x.N, x.K, x.Developer = s.Simulator, s.Condition, s.N, s.K, d
		st.TrialScores = append(st.TrialScores, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("trial scores: %w", err)
	}
	err = scanAll(ctx, db, "study_trial_points", []any{n, k}, func(rows *sql.Rows) error {
		var x StudyTrialPoints
		if err := rows.Scan(&set, &x.Trials, &x.Hits, &x.Disagree, &x.Count); err != nil {
			return err
		}
		s, _, err := at(set, 0)
		if err != nil {
			return err
		}
		x.Simulator, x.Condition, x.N, x.K = s.Simulator, s.Condition, s.N, s.K
		st.TrialPoints = append(st.TrialPoints, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("trial points: %w", err)
	}
	err = scanAll(ctx, db, "study_length_words", nil, func(rows *sql.Rows) error {
		var x StudyLengthWords
		if err := rows.Scan(&set, &x.Words, &x.Count); err != nil {
			return err
		}
		s, _, err := at(set, 0)
		if err != nil {
			return err
		}
		x.Simulator, x.Condition, x.N, x.K = s.Simulator, s.Condition, s.N, s.K
		st.LengthWords = append(st.LengthWords, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("lengths: %w", err)
	}
	err = scanAll(ctx, db, "study_length_developers", nil, func(rows *sql.Rows) error {
		var x StudyLengthDeveloper
		if err := rows.Scan(&set, &dev, &x.Count, &x.Words); err != nil {
			return err
		}
		s, d, err := at(set, dev)
		if err != nil {
			return err
		}
		x.Simulator, x.Condition, x.N, x.K, x.Developer = s.Simulator, s.Condition, s.N, s.K, d
		st.LengthDevelopers = append(st.LengthDevelopers, x)
		return nil
	})
	if err != nil {
		return fmt.Errorf("lengths: %w", err)
	}
	return nil
}

func studySimulators(ctx context.Context, db Querier) ([]StudySimulator, error) {
	var out []StudySimulator
	err := scanAll(ctx, db, "study_simulators", nil, func(rows *sql.Rows) error {
		var s StudySimulator
		if err := rows.Scan(&s.Name, &s.Backend, &s.Model, &s.Params, &s.PriceIn, &s.PriceOut, &s.BatchDiscount); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// CasePoint is one point of the case-study developer with its texts.
type CasePoint struct {
	ID         string
	PriorTurns int
	Agent      string // the agent's latest turn before the moment; "" when none
	Real       string // the real developer message
}

// CaseGeneration is the text of one generation of the case study.
type CaseGeneration struct {
	PointID, Simulator, Condition string
	Text, Error                   string
	Move                          string // the judge's move; "" when unlabelled
	Failed                        bool   // an error, or no text
}

// CaseTexts are the texts of one developer's points and generations.
type CaseTexts struct {
	Developer   string
	Points      []CasePoint      // by id
	Generations []CaseGeneration // by point, simulator, condition
}

// LoadCaseTexts reads the texts of developer's points and of the
// generations there at live window n and history k, with judge's moves.
func LoadCaseTexts(ctx context.Context, db Querier, judge, developer string, n, k int) (CaseTexts, error) {
	ct := CaseTexts{Developer: developer}
	err := scanAll(ctx, db, "study_case_points", []any{developer}, func(rows *sql.Rows) error {
		var p CasePoint
		if err := rows.Scan(&p.ID, &p.PriorTurns, &p.Agent, &p.Real); err != nil {
			return err
		}
		ct.Points = append(ct.Points, p)
		return nil
	})
	if err != nil {
		return ct, fmt.Errorf("load case study points: %w", err)
	}
	err = scanAll(ctx, db, "study_case_generations", []any{developer, n, k, judge}, func(rows *sql.Rows) error {
		var g CaseGeneration
		if err := rows.Scan(&g.PointID, &g.Simulator, &g.Condition, &g.Text, &g.Error, &g.Move, &g.Failed); err != nil {
			return err
		}
		ct.Generations = append(ct.Generations, g)
		return nil
	})
	if err != nil {
		return ct, fmt.Errorf("load case study generations: %w", err)
	}
	return ct, nil
}

// ClearSyntheticStudy deletes, in one transaction, every row a synthetic
// study (either) writes.
func ClearSyntheticStudy(ctx context.Context, ws *Workspace) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		_, err := c.ExecContext(ctx, q("clear_synthetic_study"))
		return err
	})
}
