package judge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"

	"github.com/ub-bench/ub/queries"
)

// ImportedFile is one file of criteria or verdicts imported by
// ImportRubricFile or ImportVerdictFile.
type ImportedFile struct {
	Path     string
	Imported int         // criteria or verdicts stored
	Refused  []LineError // refused lines, by line: recorded in ingest_errors
	// Rubrics: Warnings of ParseRubrics, the tasks with criteria and the
	// criteria per family.
	Warnings []string
	Tasks    int
	Families map[string]int
	// Verdicts: the graders of the stored verdicts, sorted.
	Graders []string
}

// recordRefused replaces the file's recorded ingest errors with refused.
func recordRefused(ctx context.Context, ws *queries.Workspace, file, format string, refused []LineError) error {
	if err := queries.ClearIngestErrors(ctx, ws.Conn(), file); err != nil {
		return err
	}
	for _, r := range refused {
		if err := queries.AddIngestError(ctx, ws.Conn(), file, r.Line, r.Msg, format); err != nil {
			return err
		}
	}
	return nil
}

// ImportRubricFile imports the rubric criteria of one JSONL file
// (ParseRubrics, each quote checked in sources) as accepted criteria
// written by imported:FILE, and records its refused lines in
// ingest_errors (format "rubrics").
func ImportRubricFile(ctx context.Context, ws *queries.Workspace, path string, sources QuoteSourceFunc) (ImportedFile, error) {
	res := ImportedFile{Path: path, Families: map[string]int{}}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	imp, err := ParseRubrics(f, path, sources)
	f.Close()
	if err != nil {
		return res, err
	}
	res.Warnings, res.Refused = imp.Warnings, imp.Refused
	rows := make([]queries.Criterion, len(imp.Criteria))
	tasks := map[string]bool{}
	for i, cr := range imp.Criteria {
		rows[i] = queries.Criterion{CriterionID: cr.CriterionID, Domain: cr.Domain, TaskID: cr.TaskID, Family: cr.Family,
			Mode: cr.Mode, Quote: cr.Quote, QuoteSource: cr.QuoteSource, Text: cr.Text, AppliesWhen: cr.AppliesWhen,
			WrittenBy: "imported:" + filepath.Base(path), Status: "accepted", SourceFile: path, SourceLine: cr.Line}
		tasks[cr.Domain+"/"+cr.TaskID] = true
		res.Families[cr.Family]++
	}
	if err := queries.PutCriteria(ctx, ws, rows); err != nil {
		return res, fmt.Errorf("rubrics import %s: %w", path, err)
	}
	res.Imported, res.Tasks = len(rows), len(tasks)
	return res, recordRefused(ctx, ws, path, "rubrics", res.Refused)
}

// VerdictIndex is what verdicts are checked against: the task of every
// criterion and of every episode of the workspace.
type VerdictIndex struct {
	criteria, episodes map[string]queries.TaskRef
}

// LoadVerdictIndex reads the workspace's criteria and episodes.
func LoadVerdictIndex(ctx context.Context, db queries.Querier) (VerdictIndex, error) {
	crit, err := queries.CriterionIndex(ctx, db)
	if err != nil {
		return VerdictIndex{}, err
	}
	eps, err := queries.EpisodeIndex(ctx, db)
	return VerdictIndex{crit, eps}, err
}

// ImportVerdictFile imports the verdicts of one JSONL file (ParseVerdicts;
// grader, when not "", names the grader of every line). A verdict whose
// criterion or episode is not in idx, whose criterion is of another task
// than its episode, or whose turn_idx is past the episode's end or not a
// turn of the user, is refused; refused lines are recorded in
// ingest_errors (format "verdicts").
func ImportVerdictFile(ctx context.Context, ws *queries.Workspace, path, grader string, idx VerdictIndex) (ImportedFile, error) {
	res := ImportedFile{Path: path}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	imp, err := ParseVerdicts(f, path, grader)
	f.Close()
	if err != nil {
		return res, err
	}
	var rows []queries.StoredVerdict
	graders := map[string]bool{}
	refused := imp.Refused
	for _, v := range imp.Verdicts {
		cr, okC := idx.criteria[v.CriterionID]
		ep, okE := idx.episodes[v.SimulationID]
		msg := ""
		switch {
		case !okC:
			msg = fmt.Sprintf("criterion %s is not in the workspace (run ub rubrics import)", v.CriterionID)
		case !okE:
			msg = fmt.Sprintf("simulation %s is not in the workspace (ingest its result file)", v.SimulationID)
		case cr.Domain != ep.Domain || cr.TaskID != ep.TaskID:
			msg = fmt.Sprintf("criterion %s is of task %s/%s, simulation %s of task %s/%s", v.CriterionID, cr.Domain, cr.TaskID, v.SimulationID, ep.Domain, ep.TaskID)
		case v.TurnIdx != nil && *v.TurnIdx > ep.LastTurn:
			msg = fmt.Sprintf("turn_idx %d is past the end of simulation %s (its last turn is %d)", *v.TurnIdx, v.SimulationID, ep.LastTurn)
		case v.TurnIdx != nil && !ep.UserTurns[*v.TurnIdx]:
			msg = fmt.Sprintf("turn_idx %d of simulation %s is not a user turn (a fail names the first failing user turn)", *v.TurnIdx, v.SimulationID)
		}
		if msg != "" {
			refused = append(refused, LineError{File: path, Line: v.Line, Msg: msg})
			continue
		}
		graders[v.Grader] = true
		rows = append(rows, queries.StoredVerdict{SimulationID: v.SimulationID, CriterionID: v.CriterionID, Grader: v.Grader,
			Verdict: v.Verdict, TurnIdx: v.TurnIdx, Reason: v.Reason, SourceFile: path, SourceLine: v.Line})
	}
	sort.Slice(refused, func(i, j int) bool { return refused[i].Line < refused[j].Line })
	res.Refused = refused
	if err := queries.PutVerdicts(ctx, ws, rows); err != nil {
		return res, fmt.Errorf("verdicts import %s: %w", path, err)
	}
	res.Imported = len(rows)
	for g := range graders {
		res.Graders = append(res.Graders, g)
	}
	sort.Strings(res.Graders)
	return res, recordRefused(ctx, ws, path, "verdicts", res.Refused)
}

// WriteRubric writes criteria as ub rubrics show prints them: id, task,
// family.mode and status, then the text, the quote, the condition, who
// wrote and verified it and why it was rejected.
func WriteRubric(w io.Writer, cs []queries.Criterion) error {
	for _, cr := range cs {
		fmt.Fprintf(w, "%s  %s/%s  %s.%s  [%s]\n", cr.CriterionID, cr.Domain, cr.TaskID, cr.Family, cr.Mode, cr.Status)
		fmt.Fprintf(w, "  %s\n", cr.Text)
		fmt.Fprintf(w, "  quote (%s): %q\n", cr.QuoteSource, cr.Quote)
		if cr.AppliesWhen != "" {
			fmt.Fprintf(w, "  applies when: %s\n", cr.AppliesWhen)
		}
		fmt.Fprintf(w, "  written by %s", cr.WrittenBy)
		if cr.VerifiedBy != "" {
			fmt.Fprintf(w, ", verified by %s", cr.VerifiedBy)
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
		if cr.RejectReason != "" {
			fmt.Fprintf(w, "  rejected: %s\n", cr.RejectReason)
		}
	}
	return nil
}
