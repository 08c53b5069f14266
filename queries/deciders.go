package queries

import (
	"context"
	"database/sql"
)

// LabelDecider counts a judge's labels of one target kind by the judge that
// decided them (a cascade's labels are decided by its members).
type LabelDecider struct {
	DecidedBy, Target string
	N                 int
	// MeanConfidence is the mean stored confidence of these labels; not
	// Valid when none has one.
	MeanConfidence sql.NullFloat64
}

// LabelDeciders lists judge's labels by deciding judge and target.
func LabelDeciders(ctx context.Context, db Querier, judge string) ([]LabelDecider, error) {
	rows, err := db.QueryContext(ctx, q("label_deciders"), judge)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []LabelDecider
	for rows.Next() {
		var d LabelDecider
		if err := rows.Scan(&d.DecidedBy, &d.Target, &d.N, &d.MeanConfidence); err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}
