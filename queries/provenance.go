package queries

import "context"

// Origin is one command that wrote made-up data into a workspace.
type Origin struct {
	Maker  string // the command: "ub synth --study userbench", "ub demo"
	Detail string // its settings: "seed 1, scale 1"
}

// MarkSynthetic records that maker wrote made-up data into the workspace
// (table provenance); a second mark by the same maker replaces the first.
func MarkSynthetic(ctx context.Context, db Querier, o Origin) error {
	_, err := db.ExecContext(ctx, q("mark_synthetic"), o.Maker, o.Detail)
	return err
}

// Provenance lists the commands that wrote made-up data into the
// workspace, by maker; none for a workspace of the user's own data.
func Provenance(ctx context.Context, db Querier) ([]Origin, error) {
	rows, err := db.QueryContext(ctx, q("provenance"))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Origin
	for rows.Next() {
		var o Origin
		if err := rows.Scan(&o.Maker, &o.Detail); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
