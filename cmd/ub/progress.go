package main

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/ub-bench/ub/sim/runner"
)

// generateProgress draws done/total, failures, tokens, cost and ETA on a
// terminal; nil callback otherwise.
func generateProgress(sio *streams, name string) (func(runner.RunStats), func()) {
	if !sio.tty {
		return nil, func() {}
	}
	var bar *progressbar.ProgressBar
	return func(st runner.RunStats) {
			if bar == nil {
				bar = progressbar.NewOptions(st.Unique, progressbar.OptionSetWriter(sio.err), progressbar.OptionShowCount(),
					progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
			}
			if st.Unique != bar.GetMax() {
				bar.ChangeMax(st.Unique) // the total grows as the requests are made
			}
			bar.Describe(fmt.Sprintf("%s: %d failed, %d/%d tokens, $%.4f, ETA %s", name, st.Failed(), st.TokensIn, st.TokensOut,
				st.Cost, st.ETA().Round(time.Second)))
			bar.Set(st.Done())
		}, func() {
			if bar != nil {
				bar.Finish()
			}
		}
}
