package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ub-bench/ub/ingest/lines"
	"github.com/ub-bench/ub/queries"
)

// LabelMessage is a message that imported labels name by id: its
// repository, session start and text place it on a turn of the workspace.
type LabelMessage struct {
	Repo, SessionStart, Message string
}

// ReadLabelMessages reads a messages.jsonl file (id, repo, session_start,
// message) by id. A line that is not JSON is an *lines.ParseError naming
// it.
func ReadLabelMessages(path string) (map[string]LabelMessage, error) {
	msgs := map[string]LabelMessage{}
	err := lines.ReadJSONLFile(path, func(line int, raw []byte) error {
		var m struct {
			ID           string `json:"id"`
			Repo         string `json:"repo"`
			Message      string `json:"message"`
			SessionStart string `json:"session_start"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			return &lines.ParseError{Path: path, Line: line, Reason: "invalid JSON: " + lines.JSONReason(err)}
		}
		msgs[m.ID] = LabelMessage{m.Repo, m.SessionStart, m.Message}
		return nil
	})
	return msgs, err
}

// LabelImport is a file of labels read by ReadLabels.
type LabelImport struct {
	Labels []queries.Label // in file order
	// OnPoints counts the labels on frozen points, OnMessages those on other
	// turns of the workspace, Unmatched those on nothing in it.
	OnPoints, OnMessages, Unmatched int
	// Bad are the refused lines, each "path:line: reason": when there are
	// any, nothing of the file may be imported.
	Bad []string
}

// ReadLabels reads a JSONL file of move labels (id, label, optional fine)
// as labels of judge judgeName. An id that is a point or a generation of
// the workspace labels it; an id of msgs is placed on the developer turn
// with its text in the session of its repository and start time (a point
// when that turn is one; the same text twice in a session: each label
// takes the next turn not yet taken). Bad lines (not JSON, an unknown
// move, an empty message, a target labelled twice) are collected in Bad.
func ReadLabels(ctx context.Context, db queries.Querier, path, judgeName string, msgs map[string]LabelMessage) (LabelImport, error) {
	var imp LabelImport
	pointIDs, genIDs := map[string]bool{}, map[string]bool{}
	pts, err := queries.PointMessages(ctx, db)
	if err != nil {
		return imp, err
	}
	for _, p := range pts {
		pointIDs[p.ID] = true
	}
	gens, err := queries.GenerationMessages(ctx, db)
	if err != nil {
		return imp, err
	}
	for _, g := range gens {
		genIDs[g.ID] = true
	}
	used := map[string]bool{}
	seenLabel := map[string]int{} // target NUL id -> line
	bad := func(line int, reason string) {
		imp.Bad = append(imp.Bad, (&lines.ParseError{Path: path, Line: line, Reason: reason}).Error())
	}
	err = lines.ReadJSONLFile(path, func(line int, raw []byte) error {
		var l struct {
			ID    string `json:"id"`
			Label string `json:"label"`
			Fine  string `json:"fine"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			bad(line, "invalid JSON: "+lines.JSONReason(err))
			return nil
		}
		move, err := ParseMove(l.Label)
		if err != nil {
			bad(line, err.Error())
			return nil
		}
		lab := queries.Label{TargetID: l.ID, Judge: judgeName, Move: move.String(), Label7: l.Fine, Raw: strings.TrimSpace(string(raw))}
		if l.Fine != "" {
			if _, err := ParseFine(l.Fine); err != nil {
				bad(line, err.Error())
				return nil
			}
		}
		switch {
		case pointIDs[l.ID]:
			lab.Target = "point"
			imp.OnPoints++
		case genIDs[l.ID]:
			lab.Target = "generation"
		default:
			m, ok := msgs[l.ID]
			if ok && strings.TrimSpace(m.Message) == "" {
				bad(line, "message "+l.ID+" is empty in the messages file")
				return nil
			}
			if !ok {
				lab.Target = "message"
				imp.Unmatched++
				break
			}
			matches, err := queries.TurnsByMessage(ctx, db, m.Repo, m.SessionStart, m.Message)
			if err != nil {
				return err
			}
			found, pid := false, ""
			for _, mt := range matches {
				k := fmt.Sprintf("%s\x00%d", mt.SessionID, mt.Idx)
				if !used[k] {
					used[k], found, pid = true, true, mt.PointID
					break
				}
			}
			switch {
			case found && pid != "":
				lab.Target, lab.TargetID = "point", pid
				imp.OnPoints++
			case found:
				lab.Target = "message"
				imp.OnMessages++
			default:
				lab.Target = "message"
				imp.Unmatched++
			}
		}
		k := lab.Target + "\x00" + lab.TargetID
		if first, dup := seenLabel[k]; dup {
			bad(line, fmt.Sprintf("label of %s %s repeats line %d", lab.Target, lab.TargetID, first))
			return nil
		}
		seenLabel[k] = line
		imp.Labels = append(imp.Labels, lab)
		return nil
	})
	return imp, err
}
