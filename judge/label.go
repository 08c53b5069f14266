package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ub-bench/ub/ingest/lines"
	"github.com/ub-bench/ub/queries"
)

// Targets loads what a judge labels in a workspace: for target "points"
// the real message of every frozen point, for "generations" every
// generation; it returns the labels' target kind ("point" or "generation")
// and the messages by id.
func Targets(ctx context.Context, db queries.Querier, target string) (string, []queries.LabelTarget, error) {
	load, kind := queries.PointMessages, "point"
	switch target {
	case "generations":
		load, kind = queries.GenerationMessages, "generation"
	case "profile":
		load, kind = queries.ProfileMoments, "message"
	}
	items, err := load(ctx, db)
	if err != nil {
		return "", nil, fmt.Errorf("judge: %w", err)
	}
	return kind, items, nil
}

// builtinLabels labels items of kind with b, as judge name, and counts
// the labels of each move.
func builtinLabels(b *Builtin, name, kind string, items []queries.LabelTarget) ([]queries.Label, map[Move]int) {
	labels := make([]queries.Label, len(items))
	count := map[Move]int{}
	for i, it := range items {
		r := b.Label(it.Text, it.PrevAgent)
		count[r.Move]++
		l := queries.Label{Target: kind, TargetID: it.ID, Judge: name, Move: r.Move.String(), PromptVersion: b.Version(), Raw: r.Reason, Confidence: r.Confidence}
		if r.Fine != 0 {
			l.Label7 = r.Fine.String()
		}
		labels[i] = l
	}
	return labels, count
}

// LabelOptions configures LabelWorkspace. The zero value is valid.
type LabelOptions struct {
	Judge  string // the name the labels are stored under; "" means BuiltinName
	Target string // "points" or "generations"; "" means "points"
}

// LabelSummary is what LabelWorkspace stored.
type LabelSummary struct {
	Kind    string       // "point" or "generation"
	Labels  int          // labels stored
	Already int          // of them, targets the judge had labelled before (relabelled)
	Counts  map[Move]int // labels of each move
}

// LabelWorkspace labels every point or generation of a workspace with the
// built-in judge b and replaces that judge's labels of the target.
func LabelWorkspace(ctx context.Context, ws *queries.Workspace, b *Builtin, opts LabelOptions) (LabelSummary, error) {
	name := opts.Judge
	if name == "" {
		name = BuiltinName
	}
	kind, items, err := Targets(ctx, ws.Conn(), opts.Target)
	if err != nil {
		return LabelSummary{}, err
	}
	labels, count := builtinLabels(b, name, kind, items)
	before, err := queries.LabelTargetIDs(ctx, ws.Conn(), name, kind)
	if err != nil {
		return LabelSummary{}, fmt.Errorf("judge: %w", err)
	}
	already := 0
	for _, l := range labels {
		if before[l.TargetID] {
			already++
		}
	}
	if err := queries.ReplaceLabels(ctx, ws, name, kind, labels); err != nil {
		return LabelSummary{}, fmt.Errorf("judge: store: %w", err)
	}
	return LabelSummary{Kind: kind, Labels: len(labels), Already: already, Counts: count}, nil
}

// FileLabel is the built-in judge's label of one message of a JSONL file.
type FileLabel struct {
	ID     string  `json:"id"`
	Label  string  `json:"label"`
	Fine   string  `json:"fine,omitempty"`
	Score  float64 `json:"score"`
	Conf   float64 `json:"confidence"`
	Reason string  `json:"reason"`
	Judge  string  `json:"judge"`
}

// LabelFileOptions configures LabelJSONL. The zero value is valid.
type LabelFileOptions struct {
	// BadLine is called with each line that is not a message (an
	// *lines.ParseError naming path and line); the line is skipped. nil
	// means skipped silently.
	BadLine func(err error)
}

// LabelJSONL labels with b the messages of JSONL r, named path in errors
// (one object a line: id, message, optional prev_agent), and passes each
// label to emit in file order; emit's error stops the read. It returns
// how many lines were bad.
func LabelJSONL(r io.Reader, path string, b *Builtin, emit func(FileLabel) error, opts LabelFileOptions) (int, error) {
	type item struct {
		ID        string  `json:"id"`
		Message   *string `json:"message"`
		PrevAgent string  `json:"prev_agent"`
	}
	bad := 0
	// A line that is too long or not UTF-8 is a bad line like any other:
	// named, counted and passed by, so that every bad line of the file is
	// named in one run.
	badLine := func(line int, reason string) error {
		if opts.BadLine != nil {
			opts.BadLine(&lines.ParseError{Path: path, Line: line, Reason: reason})
		}
		bad++
		return nil
	}
	err := lines.EachLine(r, path, lines.MaxJSONLLineBytes, func(line int, raw []byte) error {
		var it item
		if err := json.Unmarshal(raw, &it); err != nil || it.Message == nil || it.ID == "" {
			reason := `missing "message"`
			switch {
			case err != nil:
				reason = "invalid JSON: " + lines.JSONReason(err)
			case it.ID == "":
				reason = `missing "id" (each label is matched to its message by id)`
			}
			return badLine(line, reason)
		}
		res := b.Label(*it.Message, it.PrevAgent)
		o := FileLabel{ID: it.ID, Label: res.Move.String(), Score: res.Score, Conf: res.Confidence, Reason: res.Reason, Judge: b.Version()}
		if res.Fine != 0 {
			o.Fine = res.Fine.String()
		}
		return emit(o)
	}, badLine)
	return bad, err
}
