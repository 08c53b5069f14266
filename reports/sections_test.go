package reports

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ub-bench/ub"
	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

// checkStructure fails unless report.md in dir opens with the title, holds
// exactly the sections of the studies (in order), each with its methods and
// limitations, and a Contents whose every entry links a heading of the
// report by its GitHub anchor; and speaks of no paper.
func checkStructure(t *testing.T, dir, title string, sections []string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	first, _, _ := strings.Cut(md, "\n")
	if first != "# "+title && first != "# "+title+" on synthetic data" {
		t.Errorf("title %q, want %q", first, "# "+title)
	}
	var got []string
	an := anchors{}
	ids := map[string]string{} // anchor -> heading
	for _, line := range strings.Split(md, "\n") {
		level := len(line) - len(strings.TrimLeft(line, "#"))
		if level == 0 || !strings.HasPrefix(line[level:], " ") {
			continue
		}
		text := strings.TrimSpace(line[level:])
		ids[an.next(text)] = text
		if level == 2 && text != "Contents" {
			got = append(got, text)
		}
	}
	if strings.Join(got, " | ") != strings.Join(sections, " | ") {
		t.Errorf("sections %q, want %q", got, sections)
	}
	_, contents, _ := strings.Cut(md, "## Contents\n\n")
	contents, _, _ = strings.Cut(contents, "\n\n")
	links := regexp.MustCompile(`\[([^\]]+)\]\(#([^)]+)\)`).FindAllStringSubmatch(contents, -1)
	if len(links) < len(sections) {
		t.Errorf("contents has %d entries for %d sections:\n%s", len(links), len(sections), contents)
	}
	for _, l := range links {
		if ids[l[2]] != l[1] {
			t.Errorf("contents entry %q links #%s, the anchor of %q", l[1], l[2], ids[l[2]])
		}
	}
	for _, s := range sections {
		_, body, _ := strings.Cut(md, "## "+s+"\n")
		if i := strings.Index(body, "\n## "); i >= 0 {
			body = body[:i]
		}
		if !strings.Contains(body, "\n### Methods (") || !strings.Contains(body, "\n### Limitations (") {
			t.Errorf("section %q lacks its methods or limitations", s)
		}
	}
	for _, bad := range []string{"the seed reports", "seed 002", "seed 000", "SPEC "} {
		if strings.Contains(md, bad) {
			t.Errorf("report.md speaks of %q", bad)
		}
	}
	return md
}

// TestReportPerStudy: each workspace gets a report whose title and
// sections name the studies it holds, and only those.
func TestReportPerStudy(t *testing.T) {
	t.Parallel()
	const ub, fid, rev = "UserBench: next-action prediction", "User fidelity", "Simulator error rate (human review)"
	t.Run("tau2 only: user fidelity, no UserBench section", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := Prepare(fidelityInput()).WriteAll(dir); err != nil {
			t.Fatal(err)
		}
		md := checkStructure(t, dir, "User fidelity report", []string{fid})
		for _, s := range []string{"Next-action prediction accuracy", "Templates:", "skipped leaderboard", "`leaderboard`"} {
			if strings.Contains(md, s) {
				t.Errorf("a tau2-only report holds %q", s)
			}
		}
		// No rubric and no verdict: the UFS part says so and names the commands.
		if !strings.Contains(md, "### User fidelity score (UFS): not yet measured") || !strings.Contains(md, "ub rubrics import FILE.jsonl") ||
			!strings.Contains(md, "ub verdicts import FILE.jsonl (or ub grade)") {
			t.Error("the UFS part does not say what is missing and which commands make it")
		}
	})
	t.Run("rubrics without verdicts: the verdict commands", func(t *testing.T) {
		in := fidelityInput()
		in.Rubrics = []queries.RubricCount{{Domain: "telecom", TaskID: "0", Family: "disclosure", Mode: "early_disclosure", WrittenBy: "imported:r.jsonl", Status: "accepted", Criteria: 3}}
		dir := t.TempDir()
		if _, err := Prepare(in).WriteAll(dir); err != nil {
			t.Fatal(err)
		}
		md := checkStructure(t, dir, "User fidelity report", []string{fid})
		if !strings.Contains(md, "3 accepted rubric criteria but no verdicts: grade the episodes with ub verdicts import FILE.jsonl (or ub grade).") {
			t.Error("no word of the missing verdicts")
		}
	})
	t.Run("UserBench only", func(t *testing.T) {
		dir := t.TempDir()
		sum, err := Prepare(Input{Study: &queries.Study{Judge: "builtin", Counts: queries.StudyCounts{Sessions: 3}}}).WriteAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		md := checkStructure(t, dir, "UserBench report", []string{ub})
		if strings.Contains(md, "## User fidelity") || strings.Contains(md, "### Episodes") {
			t.Error("a UserBench-only report speaks of episodes")
		}
		if len(sum.Studies) != 1 || sum.Studies[0] != StudyUserBench {
			t.Errorf("studies %v", sum.Studies)
		}
	})
	t.Run("every study, and --study restricts", func(t *testing.T) {
		in := fidelityInput()
		in.Study = &queries.Study{Judge: "builtin", Counts: queries.StudyCounts{Sessions: 3}}
		rs := reviewStatsFixture(t)
		in.Review = &rs
		dir := t.TempDir()
		sum, err := Prepare(in).WriteAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		checkStructure(t, dir, "UserBench, user fidelity and human review report", []string{ub, fid, rev})
		if !contains(sum.Figures, FigReviewErrorShare) || !contains(sum.Figures, FigReviewCodes) {
			t.Errorf("the review figures are not drawn: %v", sum.Figures)
		}
		in.Studies = []string{StudyReview}
		dir = t.TempDir()
		sum, err = Prepare(in).WriteAll(dir)
		if err != nil {
			t.Fatal(err)
		}
		checkStructure(t, dir, "Human review report", []string{rev})
		for _, f := range sum.Figures {
			if f != FigReviewErrorShare && f != FigReviewCodes {
				t.Errorf("--study review drew %s", f)
			}
		}
	})
	t.Run("synth fidelity: the UFS, rubric set and failure modes", func(t *testing.T) {
		in := synthFidelityInput(t)
		r := Prepare(in.Input)
		r.SetFidelity(in.fid)
		dir := t.TempDir()
		if _, err := r.WriteAll(dir); err != nil {
			t.Fatal(err)
		}
		md := checkStructure(t, dir, "User fidelity report", []string{fid})
		for _, s := range []string{"### Rubric set", "### Failure modes", "### User fidelity score (UFS)", "were imported", "| user\\_simulator:gemma-4-26b@t1 |"} {
			if !strings.Contains(md, s) {
				t.Errorf("report.md lacks %q", s)
			}
		}
		if strings.Contains(md, "without seeing") || strings.Contains(md, "without the simulator's name") {
			t.Error("blind grading asserted for imported verdicts")
		}
		// The one file of 7 simulators x 4 domains: a row each, not one.
		if n := strings.Count(md, "\n| synth | tau2 | "); n != 28 {
			t.Errorf("%d rows of the episode table for file synth, want 28 (7 simulators x 4 domains)", n)
		}
	})
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

type synthFid struct {
	Input
	fid FidelityInput
}

// synthFidelityInput loads the synthetic fidelity study (sim/synth) as ub
// report does: episodes, rubric counts, failure modes, graded episodes.
func synthFidelityInput(t *testing.T) synthFid {
	t.Helper()
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if _, err := synth.WriteFidelity(ctx, ws, synth.FidelityOptions{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	db := ws.Conn()
	var in Input
	if in.Episodes, err = queries.LoadEpisodeReport(ctx, db); err != nil {
		t.Fatal(err)
	}
	if in.Rubrics, err = queries.RubricCounts(ctx, db); err != nil {
		t.Fatal(err)
	}
	if in.FailureModes, err = queries.FailureModes(ctx, db); err != nil {
		t.Fatal(err)
	}
	rows, err := queries.LoadFidelity(ctx, db, synth.FidelityGrader)
	if err != nil {
		t.Fatal(err)
	}
	fi := FidelityInput{Grader: synth.FidelityGrader, Episodes: FidelityEpisodes(rows, synth.FidelityGrader), GraderImported: true,
		Bootstrap: analysis.BootstrapOptions{B: 50, Seed: analysis.DefaultBootstrapSeed}}
	return synthFid{in, fi}
}

// TestRubricSetAndFailureModes: criteria counted per domain, family and
// mode with their tasks, per task (2 and 3 accepted criteria: min 2,
// median 2.5, max 3), by writer and verifier; per mode the failing
// episodes and the failing user turn quoted, its Markdown escaped; a mode
// nothing failed shows 0.
func TestRubricSetAndFailureModes(t *testing.T) {
	in := Input{Episodes: fidelityInput().Episodes,
		Rubrics: []queries.RubricCount{
			{Domain: "telecom", TaskID: "0", Family: "disclosure", Mode: "early", WrittenBy: "m1", VerifiedBy: "m2", Status: "accepted", Criteria: 2},
			{Domain: "telecom", TaskID: "1", Family: "disclosure", Mode: "early", WrittenBy: "m1", VerifiedBy: "m2", Status: "accepted", Criteria: 1},
			{Domain: "telecom", TaskID: "1", Family: "groundedness", Mode: "invents", WrittenBy: "m1", VerifiedBy: "m2", Status: "accepted", Criteria: 2},
			{Domain: "telecom", TaskID: "1", Family: "groundedness", Mode: "invents", WrittenBy: "m1", VerifiedBy: "m2", Status: "rejected", Criteria: 4},
		},
		FailureModes: []queries.FailureMode{{Grader: "g", Mode: "early", Episodes: 2, Verdicts: 3, Family: "disclosure", SimulationID: "a2",
			CriterionID: "c1", Turn: 3, Text: "my id is *mia* <b>now</b>"}},
	}
	r := Prepare(in)
	r.SetFidelity(FidelityInput{Grader: "g", Episodes: []ub.FidelityEpisode{{ID: "a2", Simulator: "A", Domain: "telecom", Task: "1", Reward: 0}}})
	var b strings.Builder
	r.rubricSection(&b)
	md := b.String()
	for _, w := range []string{
		"5 accepted criteria (graded) for 2 tasks in 1 domain, and 4 rejected by the verifier",
		"Accepted criteria per task: min 2, median 2.5, max 3.",
		"| telecom | disclosure | early | 3 | 2 |",
		"| telecom | groundedness | invents | 2 | 1 |",
		"| m1 | m2 | accepted | 5 |", "| m1 | m2 | rejected | 4 |",
		"| early | disclosure | 2 | 3 | a2 | 3 | \u201cmy id is \\*mia\\* &lt;b&gt;now&lt;/b&gt;\u201d |",
		"| invents | groundedness | 0 | 0 |",
	} {
		if !strings.Contains(md, w) {
			t.Errorf("rubric section lacks %q:\n%s", w, md)
		}
	}
}

// TestFineAgreementSection: the 7-way and 4-way kappas of a pair side by
// side, and Fleiss' kappa with its judges and targets.
func TestFineAgreementSection(t *testing.T) {
	k := func(x, lo, hi float64) analysis.Kappa { return analysis.Kappa{Kappa: x, Lo: lo, Hi: hi} }
	r := Prepare(Input{Fine: []FineKappa{{A: "a", B: "b", N: 40, Kappa7: k(0.5, 0.3, 0.7), Kappa4: k(0.75, 0.6, 0.9)}},
		Fleiss: &FleissAgreement{Judges: []string{"a", "b", "c"}, Items: 12, Kappa: 5.0 / 11}})
	var b strings.Builder
	r.fineAgreementSection(&b)
	for _, w := range []string{"| a | b | 40 | 0.500 | \\[0.300, 0.700\\] | 0.750 | \\[0.600, 0.900\\] |",
		"Fleiss' kappa (Fleiss 1971) of the 3 judges a, b, c on the moves of the 12 targets every one of them labelled: 0.455."} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("section lacks %q:\n%s", w, b.String())
		}
	}
}
