package main

import (
	"fmt"
	"path/filepath"

	"github.com/ub-bench/ub/ingest"
)

// printEpisodeSummary prints what episode and task files brought, one line
// per file, and warns about episodes that do not belong to their task (P0).
func printEpisodeSummary(io *streams, st ingest.Stats) {
	if len(st.EpisodeFiles) == 0 && st.TotalEpisodes == 0 {
		return
	}
	fmt.Fprintf(io.out, "episodes   %d added, %d replaced, %d already present; %d task contents added\n",
		st.Episodes, st.EpisodesReplaced, st.EpisodesUnchanged, st.Tasks)
	for _, f := range st.EpisodeFiles {
		fmt.Fprintf(io.out, "  %-4s %4d episodes  %s\n", f.Format, f.Episodes, filepath.Base(f.Path))
	}
	for _, f := range st.EpisodeFiles {
		if f.TaskMismatch > 0 {
			fmt.Fprintf(io.out, "warning    %s: %d of %d episodes state another customer's identity (P0 task mismatch): kept out of fidelity scoring\n",
				filepath.Base(f.Path), f.TaskMismatch, f.Episodes)
		}
	}
	fmt.Fprintf(io.out, "workspace  %d episodes, %d flagged P0\n", st.TotalEpisodes, st.TaskMismatch)
}
