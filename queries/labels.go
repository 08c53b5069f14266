package queries

import (
	"context"
	"database/sql"
	"strconv"
	"strings"

	"github.com/ub-bench/ub/queries/internal/appender"
)

// LabelTarget is a message to label: a point's real message or a
// generation's text, with the agent turn before it.
type LabelTarget struct {
	ID, Text, PrevAgent string
}

func labelTargets(ctx context.Context, db Querier, query string) ([]LabelTarget, error) {
	rows, err := db.QueryContext(ctx, q(query))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LabelTarget
	for rows.Next() {
		var t LabelTarget
		if err := rows.Scan(&t.ID, &t.Text, &t.PrevAgent); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// PointMessages lists the real developer message of every frozen point.
func PointMessages(ctx context.Context, db Querier) ([]LabelTarget, error) {
	return labelTargets(ctx, db, "label_points")
}

// ProfileMoments lists the moments of the profile sessions of every
// developer with frozen points (label_profile.sql), each with its
// TurnTargetID: labelled as target "message", they give the chance and
// majority lines a move mix the scoring never sees.
func ProfileMoments(ctx context.Context, db Querier) ([]LabelTarget, error) {
	return labelTargets(ctx, db, "label_profile")
}

// TurnTargetID is the label target id of turn idx of a session: the
// session id, '#', the index (label_profile.sql, study_profile_moves.sql).
func TurnTargetID(sessionID string, idx int) string { return sessionID + "#" + strconv.Itoa(idx) }

// GenerationMessages lists every generation that has text.
func GenerationMessages(ctx context.Context, db Querier) ([]LabelTarget, error) {
	return labelTargets(ctx, db, "label_generations")
}

// Label is one judge's move for one target.
type Label struct {
	Target, TargetID, Judge, Move string
	Label7, PromptVersion         string // "" stored as NULL
	RequestKey, Raw               string // "" stored as NULL
	// Confidence is the judge's calibrated probability that Move is right;
	// 0 is stored as NULL (the judge gives none).
	Confidence float64
	// DecidedBy is the judge that decided the label when it is not Judge
	// (a cascade); "" stored as NULL.
	DecidedBy string
}

// ReplaceLabels replaces, in one transaction, every label of judge on
// target with labels (which must all be of that judge and target).
func ReplaceLabels(ctx context.Context, ws *Workspace, judge, target string, labels []Label) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, q("delete_labels"), judge, target); err != nil {
			return err
		}
		return appendLabels(ctx, ws, labels)
	})
}

// LabelTargetIDs lists the ids of the targets of kind target that judge
// has labelled.
func LabelTargetIDs(ctx context.Context, db Querier, judge, target string) (map[string]bool, error) {
	rows, err := db.QueryContext(ctx, q("label_target_ids"), judge, target)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids[id] = true
	}
	return ids, rows.Err()
}

// ReplaceJudgeLabels replaces every label of judge (on any target) with
// labels, in one transaction: an import is the judge's whole word.
func ReplaceJudgeLabels(ctx context.Context, ws *Workspace, judge string, labels []Label) error {
	return ws.InTx(ctx, func(c *sql.Conn) error {
		if _, err := c.ExecContext(ctx, q("delete_judge_labels"), judge); err != nil {
			return err
		}
		return appendLabels(ctx, ws, labels)
	})
}

func appendLabels(ctx context.Context, ws *Workspace, labels []Label) error {
	return appendRowsWith(ctx, ws, "labels", len(labels), func(i int, r *appender.Row) { labelRow(r, labels[i]) })
}

// LabelPair is a target both judges labelled.
type LabelPair struct {
	Target, TargetID, MoveA, MoveB string
	Label7A, Label7B               string // the 7-way labels; "" when the judge gave none
}

// LabelPairs lists the targets labelled by both judges.
func LabelPairs(ctx context.Context, db Querier, judgeA, judgeB string) ([]LabelPair, error) {
	rows, err := db.QueryContext(ctx, q("label_pairs"), judgeA, judgeB)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LabelPair
	for rows.Next() {
		var p LabelPair
		var a7, b7 sql.NullString
		if err := rows.Scan(&p.Target, &p.TargetID, &p.MoveA, &p.MoveB, &a7, &b7); err != nil {
			return nil, err
		}
		p.Label7A, p.Label7B = a7.String, b7.String
		out = append(out, p)
	}
	return out, rows.Err()
}

// JudgeLabels is how many targets of a kind a judge labelled.
type JudgeLabels struct {
	Judge, Target  string
	N, Unparseable int
}

// Judges lists every judge with its label counts.
func Judges(ctx context.Context, db Querier) ([]JudgeLabels, error) {
	rows, err := db.QueryContext(ctx, q("judges"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []JudgeLabels
	for rows.Next() {
		var j JudgeLabels
		if err := rows.Scan(&j.Judge, &j.Target, &j.N, &j.Unparseable); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// TurnMatch is a developer turn found by its text.
type TurnMatch struct {
	SessionID string
	Idx       int
	PointID   string // "" when the turn is not a frozen point
}

// TurnsByMessage finds the developer turns with this message text (or
// starting with it, for messages cut short) in the repository's session that
// started at sessionStart ("2006-01-02 15:04:05"), in turn order.
func TurnsByMessage(ctx context.Context, db Querier, repo, sessionStart, message string) ([]TurnMatch, error) {
	rows, err := db.QueryContext(ctx, q("turn_by_message"), repo, sessionStart, message)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []TurnMatch
	for rows.Next() {
		var m TurnMatch
		if err := rows.Scan(&m.SessionID, &m.Idx, &m.PointID); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// FineJudges lists the judges that gave any 7-way label, by name.
func FineJudges(ctx context.Context, db Querier) ([]string, error) {
	rows, err := db.QueryContext(ctx, q("label_fine_judges"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var j string
		if err := rows.Scan(&j); err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, rows.Err()
}

// JudgeLabel is one judge's move on one target.
type JudgeLabel struct {
	Target, TargetID, Judge, Move string
}

// LabelMatrix lists the moves the judges gave the targets every one of
// them labelled readably, by target and judge (label_matrix.sql).
func LabelMatrix(ctx context.Context, db Querier, judges []string) ([]JudgeLabel, error) {
	rows, err := db.QueryContext(ctx, q("label_matrix"), strings.Join(judges, "\x1f"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []JudgeLabel
	for rows.Next() {
		var l JudgeLabel
		if err := rows.Scan(&l.Target, &l.TargetID, &l.Judge, &l.Move); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}
