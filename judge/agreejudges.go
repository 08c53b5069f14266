package judge

import (
	"context"
	"fmt"

	"github.com/ub-bench/ub/queries"
)

// JudgePair is the agreement of two judges on the targets both labelled.
// Its fields are in the order of their JSON names (ub agree --json).
type JudgePair struct {
	Agreement Agreement `json:"agreement"`
	// Fine is the agreement on the targets both judges gave a 7-way label
	// (labels.label7): kappa on the seven labels and on their 4-way
	// collapse; nil when there is none.
	Fine   *FineAgreement `json:"fine"`
	JudgeA string         `json:"judge_a"`
	JudgeB string         `json:"judge_b"`
	// N is the number of targets compared; Unparseable the targets in
	// common where either label is 'unparseable' (counted, not compared).
	N           int `json:"n"`
	Unparseable int `json:"unparseable"`
}

// AgreeJudges compares every pair of the named judges (i < j in names'
// order) on the targets both labelled and passes each pair to fn as soon
// as it is computed; an error of fn stops it. Two judges with no target
// in common is an error.
func AgreeJudges(ctx context.Context, db queries.Querier, names []string, fn func(JudgePair) error) error {
	for i := 0; i < len(names); i++ {
		for j := i + 1; j < len(names); j++ {
			a, b := names[i], names[j]
			pairs, err := queries.LabelPairs(ctx, db, a, b)
			if err != nil {
				return err
			}
			var ma, mb []Move
			var fa, fb []Fine
			unparseable := 0
			for _, p := range pairs {
				if x, errA := ParseFine(p.Label7A); errA == nil {
					if y, errB := ParseFine(p.Label7B); errB == nil {
						fa, fb = append(fa, x), append(fb, y)
					}
				}
				x, errA := ParseMove(p.MoveA)
				y, errB := ParseMove(p.MoveB)
				if errA != nil || errB != nil { // 'unparseable': counted, not compared
					unparseable++
					continue
				}
				ma, mb = append(ma, x), append(mb, y)
			}
			if len(ma) == 0 {
				return fmt.Errorf("agree: judges %s and %s labelled no target in common (see ub agree --list)", a, b)
			}
			ag, err := Agree(ma, mb)
			if err != nil {
				return fmt.Errorf("agree: %s vs %s: %w", a, b, err)
			}
			jp := JudgePair{Agreement: ag, JudgeA: a, JudgeB: b, N: len(ma), Unparseable: unparseable}
			if len(fa) > 0 {
				f, err := AgreeFine(fa, fb)
				if err != nil {
					return fmt.Errorf("agree: %s vs %s: %w", a, b, err)
				}
				jp.Fine = &f
			}
			if err := fn(jp); err != nil {
				return err
			}
		}
	}
	return nil
}
