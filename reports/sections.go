package reports

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/queries"
)

// present is whether the workspace holds any data of the study: sessions,
// points, generations, labels or a split for UserBench; episodes for user
// fidelity; review decisions for the review.
func (r *Report) present(study string) bool {
	switch study {
	case StudyUserBench:
		c := r.st.Counts
		return c.Sessions > 0 || c.Points > 0 || c.Generations > 0 || c.Labels > 0 ||
			len(r.st.Points) > 0 || len(r.st.Settings) > 0 || r.in.Split != nil
	case StudyFidelity:
		return r.in.Episodes != nil || (r.fid != nil && r.fid.n > 0)
	case StudyReview:
		return r.in.Review != nil
	}
	return false
}

// selected is whether the report writes the study: present, and asked for
// (Input.Studies; nil asks for every study).
func (r *Report) selected(study string) bool {
	if !r.present(study) {
		return false
	}
	if len(r.in.Studies) == 0 {
		return true
	}
	for _, s := range r.in.Studies {
		if s == study {
			return true
		}
	}
	return false
}

// Studies are the studies WriteAll writes, in report order: those the
// workspace holds data of, restricted to Input.Studies when given.
func (r *Report) Studies() []string {
	var out []string
	for _, s := range studies {
		if r.selected(s.name) {
			out = append(out, s.name)
		}
	}
	return out
}

// Holds is whether the workspace holds any data of the study (Studies).
func (r *Report) Holds(study string) bool { return r.present(study) }

// MissingStudy says that the workspace holds no data of the study and the
// commands that make it.
func MissingStudy(study string) string {
	for _, s := range studies {
		if s.name == study {
			return fmt.Sprintf("the workspace holds no %s data: %s", s.noun, startHint[study])
		}
	}
	return "unknown study " + study
}

// LeftOut says which episodes the workspace holds that no statistic
// counts, when it holds no other (only placeholders of simulations that
// never ran and episodes of solo-mode runs): "" when there are none or
// the user-fidelity study has episodes to count (its Episodes section
// then says so).
func (r *Report) LeftOut() string {
	ep := r.leftOut
	if ep == nil {
		return ""
	}
	var parts []string
	if n := len(ep.Solo); n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of tau2 solo-mode runs (user `dummy_user`: no simulated user took part)", n, plural(n, "episode", "episodes")))
	}
	if n := ep.Placeholders; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s of %s that never ran (termination reason `infrastructure_error`, no messages)",
			n, plural(n, "placeholder", "placeholders"), plural(n, "a simulation", "simulations")))
	}
	return fmt.Sprintf("The workspace holds no episode the user-fidelity study counts, only %s: the report leaves them out.", strings.Join(parts, " and "))
}

// startHint is the command that starts each study, for a report that
// does not hold it.
var startHint = map[string]string{
	StudyUserBench: "ub ingest your coding-agent sessions, then ub split, ub points, ub generate and ub judge",
	StudyFidelity:  "ub ingest tau2-bench result files, then ub rubrics import and ub verdicts import (or ub grade)",
	StudyReview:    "ub review sample, then ub review serve or ub review import FILE",
}

// reportTitle names the studies the report holds: "UserBench report",
// "UserBench and user fidelity report", ...
func reportTitle(names []string) string {
	var nouns []string
	for _, s := range studies {
		for _, n := range names {
			if n == s.name {
				nouns = append(nouns, s.noun)
			}
		}
	}
	var t string
	switch len(nouns) {
	case 0:
		return "Report: no study data"
	case 1:
		t = nouns[0]
	default:
		t = strings.Join(nouns[:len(nouns)-1], ", ") + " and " + nouns[len(nouns)-1]
	}
	return capital(t) + " report"
}

// anchors gives GitHub's heading anchors in document order: anchorID of
// the text, with -1, -2, ... after a repeated one.
type anchors map[string]int

func (a anchors) next(title string) string {
	id := anchorID(title)
	n := a[id]
	a[id] = n + 1
	if n > 0 {
		return id + "-" + strconv.Itoa(n)
	}
	return id
}

// heading is one heading of a section body.
type heading struct {
	level int
	text  string
}

// headingsOf lists the headings of Markdown text of levels 2 to max.
func headingsOf(md string, max int) []heading {
	var out []heading
	for _, line := range strings.Split(md, "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level >= 2 && level <= max && strings.HasPrefix(line[level:], " ") {
			out = append(out, heading{level, strings.TrimSpace(line[level:])})
		}
	}
	return out
}

// figureMarkdown writes one drawn figure under a level-3 heading.
func figureMarkdown(b *strings.Builder, f *figure) {
	fmt.Fprintf(b, "### %s\n\n", f.title)
	fmt.Fprintf(b, "![%s](%s.png)\n\n", f.name, f.name)
	fmt.Fprintf(b, "%s\n\n", mdText(f.caption))
	t := f.table
	if f.mdTable != nil {
		t = *f.mdTable
	}
	b.WriteString(mdTable(t) + f.extra)
	fmt.Fprintf(b, "\nFiles: [%s.svg](%s.svg), [%s.png](%s.png), [%s.csv](%s.csv). Figure name: `%s`.\n\n", f.name, f.name, f.name, f.name, f.name, f.name, f.name)
}

// studyFigures writes the drawn figures of study (in report order) for
// which keep is true.
func studyFigures(b *strings.Builder, out []built, study string, keep func(name string) bool) {
	for i, o := range out {
		if o.f != nil && builders[i].study == study && keep(builders[i].name) {
			figureMarkdown(b, o.f)
		}
	}
}

func anyFigure(string) bool { return true }

// skippedSection lists the study's figures left out, each with the
// command that makes its data.
func skippedSection(b *strings.Builder, sum Summary, study, label string) {
	var rows []Skipped
	for _, s := range sum.Skipped {
		if s.Study == study {
			rows = append(rows, s)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, "### Skipped figures (%s)\n\n", label)
	for _, s := range rows {
		fmt.Fprintf(b, "- `%s`: %s\n", s.Figure, mdText(s.Reason))
	}
	b.WriteString("\n")
}

// markdown is report.md: a title naming the studies it holds, the
// contents, and one section per study, each with its own contents,
// figures, skipped figures, methods and limitations.
func (r *Report) markdown(out []built, sum Summary) string {
	names := r.Studies()
	var b strings.Builder
	title := reportTitle(names)
	b.WriteString("# " + title)
	if len(r.in.Synthetic) > 0 {
		b.WriteString(" on synthetic data")
		fmt.Fprintf(&b, "\n\n**Synthetic data.** Every number below is drawn from data ub made up (%s), not measured; "+
			"simulator and model names are labels of made-up rows, not claims about those models. Every figure carries the mark.", originText(r.in.Synthetic))
	}
	b.WriteString("\n\n")
	type sec struct {
		info studyInfo
		body string
	}
	var secs []sec
	for _, s := range studies {
		if !r.selected(s.name) {
			continue
		}
		var sb strings.Builder
		switch s.name {
		case StudyUserBench:
			r.userBenchSection(&sb, out, sum)
		case StudyFidelity:
			r.fidelityStudy(&sb, out, sum)
		case StudyReview:
			r.reviewStudy(&sb, out, sum)
		}
		secs = append(secs, sec{s, sb.String()})
	}
	var held, absent []string
	for _, s := range studies {
		switch {
		case r.selected(s.name):
			held = append(held, s.noun)
		case !r.present(s.name):
			absent = append(absent, fmt.Sprintf("%s (%s)", s.noun, startHint[s.name]))
		}
	}
	if len(held) == 0 {
		b.WriteString("This workspace holds no data of the studies asked for.")
	} else {
		fmt.Fprintf(&b, "This report holds %d %s: %s.", len(held), plural(len(held), "study", "studies"), strings.Join(held, ", "))
	}
	if len(r.in.Studies) > 0 {
		fmt.Fprintf(&b, " Restricted to --study %s.", mdText(strings.Join(r.in.Studies, ",")))
	}
	if len(absent) > 0 {
		fmt.Fprintf(&b, " Not in this workspace: %s.", mdText(strings.Join(absent, "; ")))
	}
	if note := r.LeftOut(); note != "" {
		b.WriteString(" " + note)
	}
	b.WriteString(" Everything below is regenerated byte for byte by `ub report` on the same workspace.\n\n")
	if len(secs) == 0 {
		return b.String()
	}
	an := anchors{}
	an.next(title)
	b.WriteString("## Contents\n\n")
	an.next("Contents")
	// The anchors of every section's headings, in document order.
	type entry struct {
		h  heading
		id string
	}
	entries := make([][]entry, len(secs))
	for i, s := range secs {
		for _, h := range headingsOf(s.body, 3) {
			entries[i] = append(entries[i], entry{h, an.next(h.text)})
		}
	}
	for i, s := range secs {
		top := entries[i][0]
		fmt.Fprintf(&b, "%d. [%s](#%s)\n", i+1, top.h.text, top.id)
		for j, e := range entries[i][1:] {
			_ = s
			fmt.Fprintf(&b, "   %d. [%s](#%s)\n", j+1, e.h.text, e.id)
		}
	}
	b.WriteString("\n")
	for i, s := range secs {
		// Each section opens with its own contents, after its first
		// paragraph.
		head, rest, _ := strings.Cut(s.body, "\n\n")
		intro, rest, _ := strings.Cut(rest, "\n\n")
		b.WriteString(head + "\n\n" + intro + "\n\n")
		var parts []string
		for _, e := range entries[i][1:] {
			if e.h.level == 3 {
				parts = append(parts, fmt.Sprintf("[%s](#%s)", e.h.text, e.id))
			}
		}
		if len(parts) > 0 {
			fmt.Fprintf(&b, "In this section: %s.\n\n", strings.Join(parts, " · "))
		}
		b.WriteString(rest)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// userBenchSection is the UserBench study: its figures, skipped figures,
// methods and limitations.
func (r *Report) userBenchSection(b *strings.Builder, out []built, sum Summary) {
	st := r.st
	fmt.Fprintf(b, "## %s\n\n", studies[0].title)
	fmt.Fprintf(b, "Next-action prediction accuracy of %d simulators on %d frozen moments of %d developers, scored by judge %s. "+
		"Leaderboard setting: live window %s.\n\n", len(r.leaderboardSims()), len(st.Points), r.scoredDevelopers(), judgeName(st.Judge), r.anchorText())
	studyFigures(b, out, StudyUserBench, anyFigure)
	r.fineAgreementSection(b)
	skippedSection(b, sum, StudyUserBench, "UserBench")
	r.methods(b)
	r.userBenchLimits(b)
}

// judgeName is the judge in code, or a note that none labelled anything.
func judgeName(j string) string {
	if j == "" {
		return "none (no labels yet: run ub judge)"
	}
	return mdCode(j)
}

// userBenchLimits writes what the UserBench numbers cannot say.
func (r *Report) userBenchLimits(b *strings.Builder) {
	b.WriteString("### Limitations (UserBench)\n\n")
	var ls []string
	if r.in.JudgeQuality == nil || r.st.Judge != "builtin" {
		ls = append(ls, fmt.Sprintf("Moves are the labels of judge %s, whose agreement with careful human labels this report does not measure: an error of the judge is scored as the simulator's.", judgeName(r.st.Judge)))
	} else {
		ls = append(ls, "Moves are the built-in judge's labels, not human ones; its measured agreement is in the calibration figure, and an error of the judge is scored as the simulator's.")
	}
	if n := r.scoredDevelopers(); n < 10 {
		ls = append(ls, fmt.Sprintf("%d developers are scored: below about ten, intervals over developers undercover.", n))
	}
	if r.unscoredPoints > 0 {
		ls = append(ls, fmt.Sprintf("%d frozen points have no scorable real move and are left out.", r.unscoredPoints))
	}
	if r.in.Split == nil {
		ls = append(ls, "No leak-free split was made (ub split): profile and held-out sessions may share a repository.")
	}
	if len(r.in.OffLeaderboard) > 0 {
		ls = append(ls, fmt.Sprintf("Kept in the data but not ranked (--off-leaderboard): %s.", strings.Join(r.in.OffLeaderboard, ", ")))
	}
	ls = append(ls, "One frozen moment per turn of a held-out session: what the developer did next in that session, which a simulator may predict differently and still be a plausible user.")
	for _, l := range ls {
		fmt.Fprintf(b, "- %s\n", mdText(l))
	}
	b.WriteString("\n")
}

// fidelityStudy is the user-fidelity study: the episodes, probes and
// reward spread, the rubric set and failure modes, the UFS tables and
// figures, skipped figures, methods and limitations.
func (r *Report) fidelityStudy(b *strings.Builder, out []built, sum Summary) {
	fmt.Fprintf(b, "## %s\n\n", studies[1].title)
	n := 0
	if r.in.Episodes != nil {
		n = r.in.Episodes.Len()
	}
	graded := 0
	if r.fid != nil {
		graded = r.fid.n
	}
	ufs := fmt.Sprintf("the user fidelity score (UFS) of %d graded episodes", graded)
	if graded == 0 {
		ufs = "no user fidelity score (UFS) yet: no episode is graded"
	}
	fmt.Fprintf(b, "How faithfully user simulators play the user in %d tau2 episodes: judge-free probes, reward spread, and %s.\n\n", n, ufs)
	r.userFidelity(b)
	isProbe := func(name string) bool { return name == "probe-rates" || name == "reward-range" }
	studyFigures(b, out, StudyFidelity, isProbe)
	r.rubricSection(b)
	if graded == 0 {
		b.WriteString("### User fidelity score (UFS): not yet measured\n\n")
		fmt.Fprintf(b, "%s\n\n", mdText(r.ufsMissing()))
	} else {
		r.fidelitySection(b, out)
	}
	skippedSection(b, sum, StudyFidelity, "user fidelity")
	r.fidelityMethods(b)
	r.fidelityLimits(b)
}

// ufsMissing says what the UFS lacks and the commands that make it.
func (r *Report) ufsMissing() string {
	crit := 0
	for _, c := range r.rubrics.Cells {
		crit += c.Criteria
	}
	if crit == 0 {
		return "No rubric criteria: import them with ub rubrics import FILE.jsonl (or write them with ub rubrics write), " +
			"then grade every episode against them with ub verdicts import FILE.jsonl (or ub grade)."
	}
	return fmt.Sprintf("%d accepted rubric criteria but no verdicts: grade the episodes with ub verdicts import FILE.jsonl (or ub grade).", crit)
}

// fidelityLimits writes what the fidelity numbers cannot say.
func (r *Report) fidelityLimits(b *strings.Builder) {
	b.WriteString("### Limitations (user fidelity)\n\n")
	var ls []string
	fd := r.fid
	if fd == nil || fd.n == 0 {
		ls = append(ls, "No UFS: only the judge-free probes and the reward spread describe the simulators.")
	} else {
		if fd.in.GraderImported {
			ls = append(ls, fmt.Sprintf("The verdicts of grader %s were imported: whether it saw which simulator produced an episode is not recorded.", fd.in.Grader))
		}
		if fd.in.SecondGrader == "" {
			ls = append(ls, "One grader: the verdicts' agreement with a second grader is not measured.")
		}
		unknown := 0
		for _, s := range fd.ufs {
			if s.CostKnown == 0 {
				unknown++
			}
		}
		if unknown > 0 {
			ls = append(ls, fmt.Sprintf("%d simulators have no known cost and stay off the frontier.", unknown))
		}
		if len(fd.small) > 0 {
			ls = append(ls, "Simulators with few scored episodes are left out of the cross-simulator statistics: "+strings.Join(fd.small, ", ")+".")
		}
	}
	ls = append(ls, "The rubric criteria speak of the simulated user only; an agent's errors are not graded.")
	for _, l := range ls {
		fmt.Fprintf(b, "- %s\n", mdText(l))
	}
	b.WriteString("\n")
}

// reviewStudy is the review study: the review's tables and figures, its
// skipped figures and limitations.
func (r *Report) reviewStudy(b *strings.Builder, out []built, sum Summary) {
	st := *r.in.Review
	fmt.Fprintf(b, "## %s\n\n", studies[2].title)
	var figs []*figure
	for i, o := range out {
		if o.f != nil && builders[i].study == StudyReview {
			figs = append(figs, o.f)
		}
	}
	writeReviewSection(b, st, figs, "###")
	writeAttemptShare(b, r.in.Attempts, "###")
	b.WriteString("\n")
	skippedSection(b, sum, StudyReview, "review")
	b.WriteString("### Methods (review)\n\n")
	fmt.Fprintf(b, "Reviewers decide, per episode of a drawn batch, whether the simulated user made an error and how severe it was (ub review serve, or ub review import). "+
		"The final decision of an episode is the humans' when two or more agree, else an adjudicator's; an episode still in dispute is left out. "+
		"The error share is 1 - c/n, with the %s %.0f%% interval of the pass share c/n flipped; kappa between reviewers is Cohen's with the Fleiss-Cohen-Everitt interval, with Krippendorff's alpha (nominal) beside it.\n\n",
		mdText(st.Method), 100*st.Level)
	b.WriteString("### Limitations (review)\n\n")
	var ls []string
	if len(st.Agreement) == 0 {
		ls = append(ls, "No two reviewers decided the same episode: the decisions' reliability is not measured.")
	}
	if len(st.Pending) > 0 {
		ls = append(ls, fmt.Sprintf("%d episodes await adjudication and are left out.", len(st.Pending)))
	}
	ls = append(ls, fmt.Sprintf("The shares are of the %d reviewed episodes, a sample of the workspace's; they speak of the population only as far as the sample was drawn at random from it.", st.Episodes))
	for _, l := range ls {
		fmt.Fprintf(b, "- %s\n", mdText(l))
	}
	b.WriteString("\n")
}

// fineAgreementSection writes the judges' agreement as the taxonomy is
// measured: kappa on the 7-way labels beside kappa on their 4-way
// collapse of the same targets, and Fleiss' kappa of three or more judges.
func (r *Report) fineAgreementSection(b *strings.Builder) {
	if len(r.in.Fine) == 0 && r.in.Fleiss == nil {
		return
	}
	b.WriteString("### Judge agreement on the 7-way and 4-way labels\n\n")
	if len(r.in.Fine) > 0 {
		b.WriteString("Cohen's kappa of each pair of judges on the targets both gave a 7-way label, on the seven labels and on their collapse to the four moves " +
			"(the same targets), with the Fleiss-Cohen-Everitt 95% interval.\n\n")
		t := table{header: []string{"judge A", "judge B", "targets", "kappa, 7-way", "95% CI", "kappa, 4-way collapse", "95% CI"}}
		for _, f := range r.in.Fine {
			t.add(f.A, f.B, strconv.Itoa(f.N), fnumOr(f.Kappa7.Kappa, 3, "n/a"), ciText(f.Kappa7.Lo, f.Kappa7.Hi),
				fnumOr(f.Kappa4.Kappa, 3, "n/a"), ciText(f.Kappa4.Lo, f.Kappa4.Hi))
		}
		b.WriteString(mdTable(t))
		b.WriteString("\n")
	}
	if fl := r.in.Fleiss; fl != nil {
		fmt.Fprintf(b, "Fleiss' kappa (Fleiss 1971) of the %d judges %s on the moves of the %d targets every one of them labelled: %s.\n\n",
			len(fl.Judges), mdText(strings.Join(fl.Judges, ", ")), fl.Items, fnumOr(fl.Kappa, 3, "n/a (every label the same)"))
	}
}

// rubricSection describes the rubric set (criteria per domain, family and
// mode, per task, by writer and verifier) and the failure modes of the
// report's grader (failing episodes per mode, one failing user turn each,
// quoted from the episode).
func (r *Report) rubricSection(b *strings.Builder) {
	rs := r.rubrics
	if len(rs.Whos) == 0 {
		return
	}
	b.WriteString("### Rubric set\n\n")
	cells := map[dfm]int{}
	cellTasks := map[dfm]int{}
	domains := map[string]bool{}
	type who struct{ writer, verifier, status string }
	whos := map[who]int{}
	accepted, rejected := 0, 0
	for _, c := range rs.Whos {
		whos[who{c.WrittenBy, c.VerifiedBy, c.Status}] += c.Criteria
		if c.Status != "accepted" {
			rejected += c.Criteria
		}
	}
	for _, c := range rs.Cells {
		accepted += c.Criteria
		k := dfm{c.Domain, c.Family, c.Mode}
		cells[k] += c.Criteria
		cellTasks[k] += c.Tasks
		domains[c.Domain] = true
	}
	// The tasks' numbers of accepted criteria, in order, from how many
	// tasks have each.
	tasks := 0
	for _, t := range rs.PerTask {
		tasks += t.Tasks
	}
	nth := func(i int) int {
		for _, t := range rs.PerTask {
			if i < t.Tasks {
				return t.Criteria
			}
			i -= t.Tasks
		}
		return 0
	}
	perTaskText := "none"
	if tasks > 0 {
		med := float64(nth(tasks / 2))
		if tasks%2 == 0 {
			med = float64(nth(tasks/2-1)+nth(tasks/2)) / 2
		}
		perTaskText = fmt.Sprintf("min %d, median %s, max %d", nth(0), fnum(med, 1), nth(tasks-1))
	}
	fmt.Fprintf(b, "%d accepted criteria (graded) for %d tasks in %d %s, and %d rejected by the verifier (kept, never graded). "+
		"Accepted criteria per task: %s.\n\n", accepted, tasks, len(domains), plural(len(domains), "domain", "domains"), rejected, perTaskText)
	keys := make([]dfm, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.domain != b.domain {
			return a.domain < b.domain
		}
		if a.family != b.family {
			return a.family < b.family
		}
		return a.mode < b.mode
	})
	t := table{header: []string{"domain", "family", "mode", "criteria", "tasks"}}
	for _, k := range keys {
		t.add(k.domain, k.family, k.mode, strconv.Itoa(cells[k]), strconv.Itoa(cellTasks[k]))
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
	wk := make([]who, 0, len(whos))
	for k := range whos {
		wk = append(wk, k)
	}
	sort.Slice(wk, func(i, j int) bool {
		a, b := wk[i], wk[j]
		if a.writer != b.writer {
			return a.writer < b.writer
		}
		if a.verifier != b.verifier {
			return a.verifier < b.verifier
		}
		return a.status < b.status
	})
	t = table{header: []string{"written by", "verified by", "status", "criteria"}}
	for _, k := range wk {
		v := k.verifier
		if v == "" {
			v = "not verified by ub (imported)"
		}
		t.add(k.writer, v, k.status, strconv.Itoa(whos[k]))
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
	r.failureModes(b, cells)
}

// failureModes writes, per mode of the accepted criteria, the episodes
// the report's grader failed on a criterion of it and one example.
func (r *Report) failureModes(b *strings.Builder, cells map[dfm]int) {
	if r.fid == nil || r.fid.n == 0 {
		return
	}
	grader := r.fid.in.Grader
	modes := map[string]string{} // mode -> family (the first by name)
	for k := range cells {
		if f, ok := modes[k.mode]; !ok || k.family < f {
			modes[k.mode] = k.family
		}
	}
	byMode := map[string]queries.FailureMode{}
	for _, m := range r.in.FailureModes {
		if m.Grader == grader {
			byMode[m.Mode] = m
			if _, ok := modes[m.Mode]; !ok {
				modes[m.Mode] = m.Family
			}
		}
	}
	b.WriteString("### Failure modes\n\n")
	fmt.Fprintf(b, "Per failure mode of the criteria, the episodes grader %s failed on a criterion of the mode, and one example: the failing user turn of the first such episode, quoted from it.\n\n", mdCode(grader))
	t := table{header: []string{"mode", "family", "failing episodes", "failing verdicts", "example episode", "turn", "the user's turn"}}
	for _, mode := range sortedKeysOf(modes) {
		m, ok := byMode[mode]
		fam := modes[mode]
		if !ok {
			t.add(mode, fam, "0", "0", "", "", "")
			continue
		}
		if m.Family != "" {
			fam = m.Family
		}
		ep, turn, text := "", "", "no failing verdict names a user turn"
		if m.Text != "" {
			ep, turn, text = m.SimulationID, strconv.Itoa(m.Turn), "\u201c"+clip(m.Text, 200)+"\u201d"
		}
		t.add(mode, fam, strconv.Itoa(m.Episodes), strconv.Itoa(m.Verdicts), ep, turn, text)
	}
	b.WriteString(mdTable(t))
	b.WriteString("\n")
}

// dfm is a (domain, family, mode) cell of the rubric set.
type dfm struct{ domain, family, mode string }

// summarizeRubrics is what queries.LoadRubricSummary reads, from the
// counts of queries.RubricCounts.
func summarizeRubrics(rs []queries.RubricCount) *queries.RubricSummary {
	s := &queries.RubricSummary{}
	type who struct{ writer, verifier, status string }
	whos := map[who]int{}
	cells := map[dfm]int{}
	cellTasks := map[dfm]map[string]bool{}
	perTask := map[[2]string]int{}
	for _, c := range rs {
		whos[who{c.WrittenBy, c.VerifiedBy, c.Status}] += c.Criteria
		if c.Status != "accepted" {
			continue
		}
		k := dfm{c.Domain, c.Family, c.Mode}
		cells[k] += c.Criteria
		if cellTasks[k] == nil {
			cellTasks[k] = map[string]bool{}
		}
		cellTasks[k][c.TaskID] = true
		perTask[[2]string{c.Domain, c.TaskID}] += c.Criteria
	}
	for k, n := range whos {
		s.Whos = append(s.Whos, queries.RubricWho{WrittenBy: k.writer, VerifiedBy: k.verifier, Status: k.status, Criteria: n})
	}
	for k, n := range cells {
		s.Cells = append(s.Cells, queries.RubricCell{Domain: k.domain, Family: k.family, Mode: k.mode, Criteria: n, Tasks: len(cellTasks[k])})
	}
	hist := map[int]int{}
	for _, n := range perTask {
		hist[n]++
	}
	for _, n := range slices.Sorted(maps.Keys(hist)) {
		s.PerTask = append(s.PerTask, queries.RubricTasks{Criteria: n, Tasks: hist[n]})
	}
	return s
}
