package rubric

import (
	"bufio"
	"context"
	"database/sql"
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

// ImportVerdictFile imports the verdicts of one JSONL file (EachVerdict;
// grader, when not "", names the grader of every line) in one
// transaction. A verdict whose (simulation, criterion, grader) an earlier
// line gave, whose criterion or episode is not in the workspace, whose
// criterion is of another task than its episode, or whose turn_idx is
// past the episode's end or not a turn of the user, is refused; refused
// lines are recorded in ingest_errors (format "verdicts") and the others
// stored. The lines are staged in DuckDB as they are read and checked by
// one query over all of them (queries.VerdictStage), so that the import
// takes the same memory for any size of file; DuckDB is given
// queries.ImportMemoryShare of the workspace's memory_limit meanwhile.
func ImportVerdictFile(ctx context.Context, ws *queries.Workspace, path, grader string) (ImportedFile, error) {
	res := ImportedFile{Path: path}
	f, err := os.Open(path)
	if err != nil {
		return res, err
	}
	defer f.Close()
	restore, err := queries.ApplySettings(ctx, ws.Conn(), queries.MemoryShare(queries.ImportMemoryShare, queries.ImportMemoryFloor))
	if err != nil {
		return res, err
	}
	err = ws.InTx(ctx, func(*sql.Conn) error {
		st, err := queries.StageVerdicts(ctx, ws)
		if err != nil {
			return err
		}
		defer st.Close(context.Background())
		var refused []LineError
		err = EachVerdict(bufio.NewReaderSize(f, 1<<20), path, grader, &refused, func(v Verdict) error {
			return st.Add(v.Line, v.SimulationID, v.CriterionID, v.Grader, v.Verdict, v.TurnIdx, v.Reason)
		})
		if err != nil {
			return err
		}
		checked, err := st.Check(ctx)
		if err != nil {
			return err
		}
		for _, r := range checked {
			refused = append(refused, LineError{File: path, Line: r.Line, Msg: verdictRefusal(r)})
		}
		sort.SliceStable(refused, func(i, j int) bool { return refused[i].Line < refused[j].Line })
		res.Refused = refused
		if res.Imported, res.Graders, err = st.Store(ctx, path); err != nil {
			return fmt.Errorf("verdicts import %s: %w", path, err)
		}
		if err := queries.ClearIngestErrors(ctx, ws.Conn(), path); err != nil {
			return err
		}
		rows := make([]queries.IngestErrorRow, len(refused))
		for i, r := range refused {
			rows[i] = queries.IngestErrorRow{Path: path, Line: r.Line, Reason: r.Msg}
		}
		if err := queries.AddIngestErrors(ctx, ws, "verdicts", rows); err != nil {
			return err
		}
		return st.Close(ctx)
	})
	if rerr := restore(context.WithoutCancel(ctx)); err == nil {
		err = rerr
	}
	if err != nil {
		return ImportedFile{Path: path}, err
	}
	return res, nil
}

// verdictRefusal says why the workspace refuses a staged verdict.
func verdictRefusal(r queries.StagedRefusal) string {
	turn := r.TurnIdx.Int64
	switch {
	case r.FirstLine > 0:
		return DuplicateVerdict("", r.Line, r.FirstLine, r.SimulationID, r.CriterionID, r.Grader).Msg
	case !r.CriterionKnown:
		return fmt.Sprintf("criterion %s is not in the workspace (run ub rubrics import)", r.CriterionID)
	case !r.EpisodeKnown:
		return fmt.Sprintf("simulation %s is not in the workspace (ingest its result file)", r.SimulationID)
	case r.CriterionDomain != r.EpisodeDomain || r.CriterionTask != r.EpisodeTask:
		return fmt.Sprintf("criterion %s is of task %s/%s, simulation %s of task %s/%s", r.CriterionID, r.CriterionDomain, r.CriterionTask, r.SimulationID, r.EpisodeDomain, r.EpisodeTask)
	case r.TurnIdx.Valid && turn > int64(r.LastTurn):
		return fmt.Sprintf("turn_idx %d is past the end of simulation %s (its last turn is %d)", turn, r.SimulationID, r.LastTurn)
	default:
		return fmt.Sprintf("turn_idx %d of simulation %s is not a user turn (a fail names the first failing user turn)", turn, r.SimulationID)
	}
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
