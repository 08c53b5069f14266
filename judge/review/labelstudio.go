package review

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/ub-bench/ub/queries"
)

// Decisions as Label Studio tasks and Argilla records, and Label Studio
// annotations back (docs/review.md has the labeling configuration).
//
// A Label Studio task holds one episode: data.messages is its
// conversation (one paragraph a message, with its turn), each human
// decision is an annotation (completed_by numbers the reviewers,
// lead_time is the time spent, a skip is a cancelled annotation, an
// adjudication is ground truth) and each LLM review a prediction whose
// model_version is the model it was made with (ub review import
// --reviewer-model), else the LLM reviewer's name. A result holds the outcome (choices
// "outcome": no_error, error or failed) and one region an error: its
// code as paragraph labels "error" on the first message of its turn (all
// messages, or no paragraph named on an episode of fewer than two
// messages: the episode as a whole), its severity (choices "severity")
// and its note (textarea "note") tied to the region by its id.

// lsTask is a Label Studio task.
type lsTask struct {
	ID          int            `json:"id"`
	Data        lsData         `json:"data"`
	Annotations []lsAnnotation `json:"annotations"`
	Predictions []lsPrediction `json:"predictions"`
}

type lsData struct {
	SimulationID string      `json:"simulation_id"`
	Domain       string      `json:"domain,omitempty"`
	TaskID       string      `json:"task_id,omitempty"`
	Reward       *float64    `json:"reward,omitempty"`
	Messages     []lsMessage `json:"messages"`
}

type lsMessage struct {
	Role string `json:"role"`
	Text string `json:"text"`
	Turn int    `json:"turn"`
}

type lsAnnotation struct {
	ID           int        `json:"id"`
	CompletedBy  int        `json:"completed_by"`
	Result       []lsResult `json:"result"`
	WasCancelled bool       `json:"was_cancelled"`
	GroundTruth  bool       `json:"ground_truth"`
	CreatedAt    string     `json:"created_at"`
	UpdatedAt    string     `json:"updated_at,omitempty"`
	LeadTime     *float64   `json:"lead_time,omitempty"`
}

type lsPrediction struct {
	ModelVersion string     `json:"model_version"`
	Result       []lsResult `json:"result"`
	CreatedAt    string     `json:"created_at,omitempty"`
}

type lsResult struct {
	ID       string         `json:"id"`
	FromName string         `json:"from_name"`
	ToName   string         `json:"to_name"`
	Type     string         `json:"type"`
	Value    map[string]any `json:"value"`
}

// LabelStudioExport says what WriteLabelStudio wrote.
type LabelStudioExport struct {
	Tasks int
	// Annotators are the human reviewers by completed_by: Annotators[0]
	// is completed_by 1.
	Annotators []string
}

// exportRecord is one episode to export with its decisions.
type exportRecord struct {
	id        string
	view      queries.EpisodeView
	known     bool
	decisions []queries.Decision // human, adjudicator and llm decisions and skips, by reviewer
}

// exportEpisodes gathers every decision and skip by episode (the episodes
// of batch only, when batch is not ""), with each episode's conversation.
func exportEpisodes(ctx context.Context, db queries.Querier, batch string) ([]exportRecord, error) {
	ds, err := queries.ReviewDecisions(ctx, db)
	if err != nil {
		return nil, err
	}
	skips, err := queries.ReviewSkips(ctx, db)
	if err != nil {
		return nil, err
	}
	ds = append(ds, skips...)
	var keep map[string]bool
	if batch != "" {
		ids, err := queries.BatchEpisodes(ctx, db, batch)
		if err != nil {
			return nil, err
		}
		keep = map[string]bool{}
		for _, id := range ids {
			keep[id] = true
		}
	}
	by := map[string][]queries.Decision{}
	for _, d := range ds {
		if keep == nil || keep[d.SimulationID] {
			by[d.SimulationID] = append(by[d.SimulationID], d)
		}
	}
	for id := range keep {
		if _, ok := by[id]; !ok {
			by[id] = nil
		}
	}
	ids := make([]string, 0, len(by))
	for id := range by {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	out := make([]exportRecord, 0, len(ids))
	for _, id := range ids {
		e := exportRecord{id: id, decisions: by[id]}
		slices.SortFunc(e.decisions, func(a, b queries.Decision) int {
			if a.Reviewer < b.Reviewer {
				return -1
			}
			if a.Reviewer > b.Reviewer {
				return 1
			}
			return 0
		})
		v, err := queries.ReviewEpisode(ctx, db, id)
		switch {
		case errors.Is(err, queries.ErrNoEpisode):
		case err != nil:
			return nil, err
		default:
			e.view, e.known = v, true
		}
		out = append(out, e)
	}
	return out, nil
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// lsResults encodes a decision's outcome and errors over msgs.
func lsResults(d queries.Decision, msgs []lsMessage) []lsResult {
	res := []lsResult{{ID: "outcome", FromName: "outcome", ToName: "dialogue", Type: "choices", Value: map[string]any{"choices": []string{d.Outcome}}}}
	for k, e := range d.Errors {
		id := "e" + strconv.Itoa(k)
		region := map[string]any{"paragraphlabels": []string{e.Code}}
		// The episode as a whole spans every message; with no message or
		// one, such a region would say nothing or the one turn, so the
		// label names no paragraph (ParseLabelStudio reads it back).
		if e.TurnIdx.Valid || len(msgs) > 1 {
			start, end := 0, len(msgs)-1
			if e.TurnIdx.Valid {
				for i, m := range msgs {
					if int64(m.Turn) == e.TurnIdx.Int64 {
						start, end = i, i
						break
					}
				}
			}
			if end < start {
				end = start
			}
			endOffset := 0
			if end < len(msgs) {
				endOffset = len([]rune(msgs[end].Text))
			}
			region["start"], region["end"], region["startOffset"], region["endOffset"] = strconv.Itoa(start), strconv.Itoa(end), 0, endOffset
		}
		res = append(res,
			lsResult{ID: id, FromName: "error", ToName: "dialogue", Type: "paragraphlabels", Value: region},
			lsResult{ID: id, FromName: "severity", ToName: "dialogue", Type: "choices", Value: map[string]any{"choices": []string{e.Severity}}})
		if e.Note != "" {
			res = append(res, lsResult{ID: id, FromName: "note", ToName: "dialogue", Type: "textarea", Value: map[string]any{"text": []string{e.Note}}})
		}
	}
	return res
}

func lsMessages(v queries.EpisodeView) []lsMessage {
	msgs := []lsMessage{}
	for _, m := range v.Messages {
		msgs = append(msgs, lsMessage{Role: m.Role, Text: m.Content, Turn: m.TurnIdx})
	}
	return msgs
}

func rewardPtr(r sql.NullFloat64) *float64 {
	if !r.Valid {
		return nil
	}
	return &r.Float64
}

// WriteLabelStudio writes the decisions (of the episodes of batch; "":
// every episode with a decision or skip) as a JSON array of Label Studio
// tasks, one an episode, by simulation id.
func WriteLabelStudio(ctx context.Context, db queries.Querier, w io.Writer, batch string) (LabelStudioExport, error) {
	var st LabelStudioExport
	eps, err := exportEpisodes(ctx, db, batch)
	if err != nil {
		return st, err
	}
	annotator := map[string]int{}
	for _, e := range eps {
		for _, d := range e.decisions {
			if d.Kind != queries.KindLLM {
				annotator[d.Reviewer] = 0
			}
		}
	}
	for r := range annotator {
		st.Annotators = append(st.Annotators, r)
	}
	slices.Sort(st.Annotators)
	for i, r := range st.Annotators {
		annotator[r] = i + 1
	}
	tasks := make([]lsTask, 0, len(eps))
	ann := 0
	for i, e := range eps {
		t := lsTask{ID: i + 1, Data: lsData{SimulationID: e.id, Messages: []lsMessage{}}, Annotations: []lsAnnotation{}, Predictions: []lsPrediction{}}
		if e.known {
			t.Data.Domain, t.Data.TaskID, t.Data.Reward, t.Data.Messages = e.view.Domain, e.view.TaskID, rewardPtr(e.view.Reward), lsMessages(e.view)
		}
		for _, d := range e.decisions {
			if d.Kind == queries.KindLLM {
				t.Predictions = append(t.Predictions, lsPrediction{ModelVersion: cmp.Or(d.Model, d.Reviewer), Result: lsResults(d, t.Data.Messages), CreatedAt: rfc3339(d.DecidedAt)})
				continue
			}
			ann++
			a := lsAnnotation{ID: ann, CompletedBy: annotator[d.Reviewer], GroundTruth: d.Kind == queries.KindAdjudicator,
				CreatedAt: rfc3339(d.DecidedAt), UpdatedAt: rfc3339(d.DecidedAt), Result: []lsResult{}}
			if d.Outcome == queries.OutcomeSkipped {
				a.WasCancelled = true
			} else {
				a.Result = lsResults(d, t.Data.Messages)
			}
			switch {
			case d.LeadTime.Valid:
				a.LeadTime = &d.LeadTime.Float64
			case d.ClientTime.Valid:
				a.LeadTime = &d.ClientTime.Float64
			}
			t.Annotations = append(t.Annotations, a)
		}
		tasks = append(tasks, t)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	st.Tasks = len(tasks)
	return st, enc.Encode(tasks)
}

// ParseLabelStudio reads a Label Studio JSON export (an array of tasks
// whose data holds simulation_id and messages, as WriteLabelStudio
// writes them) and returns one human decision of reviewer per task with
// an annotation. annotator selects the annotations of one completed_by
// (0: a task's only annotation; more than one is an error naming the
// task). A cancelled annotation (a skip) and a task without an
// annotation are skipped and counted. Every error names the task.
func ParseLabelStudio(path string, r io.Reader, reviewer string, annotator int) ([]queries.Decision, ImportStats, error) {
	var st ImportStats
	var tasks []struct {
		Data struct {
			SimulationID string      `json:"simulation_id"`
			Messages     []lsMessage `json:"messages"`
		} `json:"data"`
		Annotations []struct {
			CompletedBy  json.RawMessage `json:"completed_by"`
			Result       []lsResult      `json:"result"`
			WasCancelled bool            `json:"was_cancelled"`
			CreatedAt    string          `json:"created_at"`
			UpdatedAt    string          `json:"updated_at"`
			LeadTime     *float64        `json:"lead_time"`
		} `json:"annotations"`
	}
	if err := json.NewDecoder(r).Decode(&tasks); err != nil {
		return nil, st, &ImportError{Path: path, Msg: "not a Label Studio JSON export (an array of tasks): " + err.Error()}
	}
	var out []queries.Decision
	seen := map[string]int{}
	for i, t := range tasks {
		where := fmt.Sprintf("task[%d]", i)
		bad := func(format string, a ...any) error {
			return &ImportError{Path: path, Where: where, Msg: fmt.Sprintf(format, a...)}
		}
		id := t.Data.SimulationID
		if id == "" {
			return nil, st, bad("no data.simulation_id: not a task ub wrote")
		}
		if prev, dup := seen[id]; dup {
			return nil, st, bad("episode %s repeats task[%d]", id, prev)
		}
		seen[id] = i
		var pick []int
		for k, a := range t.Annotations {
			if annotator == 0 {
				pick = append(pick, k)
				continue
			}
			var by struct {
				ID int `json:"id"`
			}
			n, err := strconv.Atoi(string(a.CompletedBy))
			if err != nil && json.Unmarshal(a.CompletedBy, &by) == nil { // an export may expand the user
				n = by.ID
			}
			if n == annotator {
				pick = append(pick, k)
			}
		}
		switch {
		case len(pick) == 0:
			st.Skipped++
			continue
		case len(pick) > 1:
			return nil, st, bad("episode %s has %d annotations: say whose with --annotator (completed_by)", id, len(pick))
		}
		a := t.Annotations[pick[0]]
		if a.WasCancelled {
			st.Skipped++
			continue
		}
		d := queries.Decision{SimulationID: id, Reviewer: reviewer, Kind: queries.KindHuman, Source: fmt.Sprintf("%s: %s", path, where)}
		at := a.UpdatedAt
		if at == "" {
			at = a.CreatedAt
		}
		tm, err := time.Parse(time.RFC3339Nano, at)
		if err != nil {
			return nil, st, bad("annotation time %q: %v", at, err)
		}
		d.DecidedAt = tm.UTC()
		if a.LeadTime != nil {
			if *a.LeadTime < 0 {
				return nil, st, bad("negative lead_time %v", *a.LeadTime)
			}
			d.LeadTime = sql.NullFloat64{Float64: *a.LeadTime, Valid: true}
		}
		regions := map[string]*queries.ReviewError{}
		var order []string
		region := func(rid string) *queries.ReviewError {
			if e, ok := regions[rid]; ok {
				return e
			}
			e := &queries.ReviewError{Severity: "minor"}
			regions[rid] = e
			order = append(order, rid)
			return e
		}
		for _, res := range a.Result {
			switch res.FromName {
			case "outcome":
				d.Outcome = firstString(res.Value["choices"])
			case "error":
				e := region(res.ID)
				e.Code = firstString(res.Value["paragraphlabels"])
				_, hasStart := res.Value["start"]
				_, hasEnd := res.Value["end"]
				if !hasStart && !hasEnd { // no paragraph named: the episode as a whole
					continue
				}
				start, err1 := strconv.Atoi(fmt.Sprint(res.Value["start"]))
				end, err2 := strconv.Atoi(fmt.Sprint(res.Value["end"]))
				if err := errors.Join(err1, err2); err != nil || start < 0 || end < start || end >= len(t.Data.Messages) {
					return nil, st, bad("region %s: paragraphs %v-%v are not messages of the episode (%d)", res.ID, res.Value["start"], res.Value["end"], len(t.Data.Messages))
				}
				if !(start == 0 && end == len(t.Data.Messages)-1 && end > 0) { // every message: the episode as a whole
					e.TurnIdx = sql.NullInt64{Int64: int64(t.Data.Messages[start].Turn), Valid: true}
				}
			case "severity":
				region(res.ID).Severity = firstString(res.Value["choices"])
			case "note":
				region(res.ID).Note = firstString(res.Value["text"])
			}
		}
		for _, rid := range order {
			e := regions[rid]
			if !ValidCode(e.Code) {
				return nil, st, bad("region %s: code %q is not in the codebook", rid, e.Code)
			}
			if !ValidSeverity(e.Severity) {
				return nil, st, bad("region %s: severity %q: want minor, critical_helped or critical_hindered", rid, e.Severity)
			}
			d.Errors = append(d.Errors, *e)
		}
		switch {
		case d.Outcome != queries.OutcomeNoError && d.Outcome != queries.OutcomeError:
			return nil, st, bad("outcome %q: want no_error or error", d.Outcome)
		case d.Outcome == queries.OutcomeError && len(d.Errors) == 0:
			return nil, st, bad("outcome error without an error region")
		case d.Outcome == queries.OutcomeNoError && len(d.Errors) > 0:
			return nil, st, bad("outcome no_error with %d error regions", len(d.Errors))
		}
		st.Decisions++
		st.Errors += len(d.Errors)
		out = append(out, d)
	}
	return out, st, nil
}

func firstString(v any) string {
	switch x := v.(type) {
	case []any:
		if len(x) > 0 {
			if s, ok := x[0].(string); ok {
				return s
			}
		}
	case string:
		return x
	}
	return ""
}

// argillaRecord is a record as Argilla's Python SDK writes one
// (rg.Record.to_dict): fields, metadata, responses by question (a human
// decision; a skip is a discarded response) and suggestions by question
// (an LLM review; agent is the LLM reviewer).
type argillaRecord struct {
	ID          string                         `json:"id"`
	Fields      argillaFields                  `json:"fields"`
	Metadata    map[string]any                 `json:"metadata"`
	Responses   map[string][]argillaResponse   `json:"responses"`
	Suggestions map[string][]argillaSuggestion `json:"suggestions"`
	Status      string                         `json:"status"`
}

type argillaFields struct {
	Conversation []argillaMessage `json:"conversation"`
}

type argillaMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type argillaResponse struct {
	Value  any    `json:"value"`
	UserID string `json:"user_id"`
	Status string `json:"status"`
}

type argillaSuggestion struct {
	Value any    `json:"value"`
	Agent string `json:"agent"`
}

// WriteArgilla writes the decisions (of batch; "": every episode with a
// decision or skip) as Argilla records, one JSON object a line, by
// simulation id. Questions: outcome (no_error, error, failed), codes
// (the error codes) and errors (one line an error: "turn 3: code
// (severity): note"); user_id is the reviewer's name.
func WriteArgilla(ctx context.Context, db queries.Querier, w io.Writer, batch string) (int, error) {
	eps, err := exportEpisodes(ctx, db, batch)
	if err != nil {
		return 0, err
	}
	enc := json.NewEncoder(w)
	for _, e := range eps {
		rec := argillaRecord{ID: e.id, Fields: argillaFields{Conversation: []argillaMessage{}}, Metadata: map[string]any{},
			Responses: map[string][]argillaResponse{}, Suggestions: map[string][]argillaSuggestion{}, Status: "pending"}
		if e.known {
			for _, m := range e.view.Messages {
				rec.Fields.Conversation = append(rec.Fields.Conversation, argillaMessage{Role: m.Role, Content: m.Content})
			}
			rec.Metadata["domain"], rec.Metadata["task_id"] = e.view.Domain, e.view.TaskID
			if e.view.Reward.Valid {
				rec.Metadata["reward"] = e.view.Reward.Float64
			}
		}
		for _, d := range e.decisions {
			codes := []string{}
			for _, x := range d.Errors {
				if !slices.Contains(codes, x.Code) {
					codes = append(codes, x.Code)
				}
			}
			lines := describeErrors(d.Errors)
			if d.Kind == queries.KindLLM {
				// The agent is the model, as Label Studio's model_version.
				agent := cmp.Or(d.Model, d.Reviewer)
				rec.Suggestions["outcome"] = append(rec.Suggestions["outcome"], argillaSuggestion{Value: d.Outcome, Agent: agent})
				rec.Suggestions["codes"] = append(rec.Suggestions["codes"], argillaSuggestion{Value: codes, Agent: agent})
				continue
			}
			status := "submitted"
			if d.Outcome == queries.OutcomeSkipped {
				status = "discarded"
			} else {
				rec.Status = "completed"
			}
			rec.Responses["outcome"] = append(rec.Responses["outcome"], argillaResponse{Value: d.Outcome, UserID: d.Reviewer, Status: status})
			rec.Responses["codes"] = append(rec.Responses["codes"], argillaResponse{Value: codes, UserID: d.Reviewer, Status: status})
			text := ""
			for i, l := range lines {
				if i > 0 {
					text += "\n"
				}
				text += l
			}
			rec.Responses["errors"] = append(rec.Responses["errors"], argillaResponse{Value: text, UserID: d.Reviewer, Status: status})
		}
		if err := enc.Encode(rec); err != nil {
			return 0, err
		}
	}
	return len(eps), nil
}
