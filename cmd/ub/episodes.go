package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/ingest"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth/democorpus"
)

// printEpisodeSummary prints what episode and task files brought, one line
// per file, and warns about episodes that do not belong to their task (P0).
func printEpisodeSummary(sio *streams, st ingest.Stats) {
	if len(st.EpisodeFiles) == 0 && st.TotalEpisodes == 0 {
		return
	}
	fmt.Fprintf(sio.out, "episodes   %d added, %d replaced, %d already present; %d task contents added\n",
		st.Episodes, st.EpisodesReplaced, st.EpisodesUnchanged, st.Tasks)
	for _, f := range st.EpisodeFiles {
		switch f.Format {
		case "tasks":
			fmt.Fprintf(sio.out, "  %-5s %4d task contents added  %s\n", f.Format, f.Tasks, filepath.Base(f.Path))
			continue
		case "splits", "policy":
			fmt.Fprintf(sio.out, "  %-5s stored with its domain  %s\n", f.Format, filepath.Base(f.Path))
			continue
		}
		fmt.Fprintf(sio.out, "  %-5s %4d episodes  %s\n", f.Format, f.Episodes, filepath.Base(f.Path))
	}
	for _, f := range st.EpisodeFiles {
		if f.TaskMismatch > 0 {
			fmt.Fprintf(sio.out, "warning    %s: %d of %d episodes state another customer's identity (P0 task mismatch): kept out of fidelity scoring\n",
				filepath.Base(f.Path), f.TaskMismatch, f.Episodes)
		}
	}
}

// episodeWorkspace says how many episodes the workspace holds, and how
// many of them are placeholders of simulations that never ran.
func episodeWorkspace(st ingest.Stats) string {
	if n := st.TotalNotRun; n > 0 {
		return fmt.Sprintf("%d episodes, of them %d %s of simulations that never ran, %d flagged P0",
			st.TotalEpisodes, n, map[bool]string{true: "placeholder", false: "placeholders"}[n == 1], st.TaskMismatch)
	}
	return fmt.Sprintf("%d episodes, %d flagged P0", st.TotalEpisodes, st.TaskMismatch)
}

// demoEpisodes writes and ingests the demo's tau2 sample (a few simulations
// in each episode format, some tripping each probe) and prints the probe
// rates, so that the demo's report has the user-fidelity figures.
func demoEpisodes(c *cli.Context, sio *streams, ws *queries.Workspace, dir string) error {
	fmt.Fprintf(sio.out, "\n== tau2 episodes and probes\n")
	paths, err := democorpus.WriteTau2(filepath.Join(dir, "tau2"))
	if err != nil {
		return fmt.Errorf("demo: tau2 sample: %w", err)
	}
	st, err := ingest.Run(c.Context, ws, paths, ingest.Options{NewProber: newProber})
	printEpisodeSummary(sio, st)
	fmt.Fprintf(sio.out, "workspace  %s\n", episodeWorkspace(st))
	if err != nil {
		return fmt.Errorf("demo: tau2 sample: %w", err)
	}
	rates, err := queries.ProbeRatesBySim(c.Context, ws.Conn())
	if err != nil {
		return err
	}
	for _, r := range rates {
		if r.Hits > 0 {
			fmt.Fprintf(sio.out, "probe      %-4s %d/%d  %s\n", r.Probe, r.Hits, r.N, r.UserSim)
		}
	}
	return nil
}
