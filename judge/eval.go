package judge

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
)

// Evaluate labels every example with b and compares the labels with the
// examples' reference moves (reference as the first labelling).
func Evaluate(b *Builtin, exs []Example) (Agreement, []Result, error) {
	res := make([]Result, len(exs))
	ref := make([]Move, len(exs))
	got := make([]Move, len(exs))
	for i, e := range exs {
		res[i] = b.Label(e.Message, e.PrevAgent)
		ref[i], got[i] = e.Move, res[i].Move
	}
	ag, err := Agree(ref, got)
	return ag, res, err
}

// CrossValidate trains on all groups but one and labels the held-out group,
// for every group (group(e) names an example's group, e.g. its developer).
// It returns the out-of-fold results in the order of exs.
func CrossValidate(exs []Example, p Params, group func(Example) string) ([]Result, error) {
	groups := map[string][]int{}
	for i, e := range exs {
		g := group(e)
		groups[g] = append(groups[g], i)
	}
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	sort.Strings(names)
	out := make([]Result, len(exs))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for gi, g := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var train []Example
			for _, e := range exs {
				if group(e) != g {
					train = append(train, e)
				}
			}
			m, err := Train(train, p)
			if err != nil {
				errs[gi] = fmt.Errorf("fold %s: %w", g, err)
				return
			}
			b := FromModel(m)
			for _, i := range groups[g] {
				out[i] = b.Label(exs[i].Message, exs[i].PrevAgent)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
