package ingest

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"

	"github.com/ub-bench/ub/analysis"
	"github.com/ub-bench/ub/queries"
)

// ProbeStats summarises a probe run.
type ProbeStats struct {
	Episodes int // episodes probed
	Findings int // findings stored
}

// RunProbes runs the judge-free probes (analysis.RunProbes, SPEC 6.3) on
// every stored episode and replaces the stored findings and applicability
// rows in one transaction. The result depends only on the stored episodes.
func RunProbes(ctx context.Context, ws *queries.Workspace) (ProbeStats, error) {
	var st ProbeStats
	d, err := queries.LoadProbeData(ctx, ws.Conn())
	if err != nil {
		return st, err
	}
	eps := probeEpisodes(d)
	var findings []analysis.Finding
	type app struct{ sim, probe string }
	var apps []app
	run := func(e *analysis.ProbeEpisode) {
		r := analysis.RunProbes(e, nil)
		for _, p := range analysis.Probes {
			if r.Applies[p] {
				apps = append(apps, app{e.SimulationID, p})
			}
		}
		findings = append(findings, r.Findings...)
	}
	// Episodes and messages both come by simulation_id: walk them together,
	// probing each episode as its messages arrive (and those without any).
	next := 0
	err = queries.StreamProbeMessages(ctx, ws.Conn(), func(sim string, msgs []queries.ProbeMessageRow) error {
		for next < len(eps) && eps[next].SimulationID < sim {
			run(eps[next])
			next++
		}
		if next < len(eps) && eps[next].SimulationID == sim {
			e := eps[next]
			e.Messages = probeMessages(msgs)
			run(e)
			e.Messages = nil
			next++
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	for ; next < len(eps); next++ {
		run(eps[next])
	}
	st.Episodes, st.Findings = len(eps), len(findings)
	err = ws.InTx(ctx, func(c *sql.Conn) error {
		if err := queries.ClearProbeResults(ctx, c); err != nil {
			return err
		}
		w := &writer{ctx: ctx, ws: ws}
		err := w.appendRows("ep_probe_findings", len(findings), func(i int) []driver.Value {
			f := findings[i]
			var t any
			if f.TurnIdx != nil {
				t = int32(*f.TurnIdx)
			}
			var detail any
			if len(f.Detail) > 0 {
				b, _ := json.Marshal(f.Detail)
				detail = json.RawMessage(b)
			}
			return []driver.Value{f.SimulationID, f.Probe, t, f.Evidence, detail}
		})
		if err != nil {
			return err
		}
		return w.appendRows("ep_probe_applicable", len(apps), func(i int) []driver.Value {
			return []driver.Value{apps[i].sim, apps[i].probe}
		})
	})
	return st, err
}

// probeEpisodes makes the probes' episodes (without messages) from the
// stored blueprints and gold user actions, by simulation_id.
func probeEpisodes(d *queries.ProbeData) []*analysis.ProbeEpisode {
	actions := map[string][]analysis.GoldAction{}
	for _, a := range d.Actions {
		g := analysis.GoldAction{Name: a.Name}
		if a.Arguments != nil {
			g.Arguments = json.RawMessage(*a.Arguments)
		}
		if a.CompareArgs != nil {
			_ = json.Unmarshal([]byte(*a.CompareArgs), &g.CompareArgs)
		}
		actions[a.TaskKey] = append(actions[a.TaskKey], g)
	}
	var out []*analysis.ProbeEpisode
	for _, r := range d.Episodes {
		e := &analysis.ProbeEpisode{SimulationID: r.SimulationID}
		if r.TaskKey != nil {
			t := &analysis.ProbeTask{KnownInfo: deref(r.KnownInfo), UserActions: actions[*r.TaskKey]}
			if r.KnownInfo == nil {
				t.KnownInfo = deref(r.Instruction)
			}
			for _, s := range []*string{r.ReasonForCall, r.KnownInfo, r.UnknownInfo, r.TaskInstructions, r.Persona, r.Instruction, r.UserID} {
				if s != nil {
					t.Blueprint = append(t.Blueprint, *s)
				}
			}
			if r.InitialState != nil {
				var is struct {
					Actions []struct {
						EnvType   string          `json:"env_type"`
						FuncName  string          `json:"func_name"`
						Arguments json.RawMessage `json:"arguments"`
					} `json:"initialization_actions"`
				}
				_ = json.Unmarshal([]byte(*r.InitialState), &is)
				for _, a := range is.Actions {
					if a.EnvType == "user" {
						t.InitActions = append(t.InitActions, analysis.GoldAction{Name: a.FuncName, Arguments: a.Arguments})
					}
				}
			}
			e.Task = t
		}
		out = append(out, e)
	}
	return out
}

// probeMessages converts one episode's stored messages.
func probeMessages(msgs []queries.ProbeMessageRow) []analysis.ProbeMessage {
	out := make([]analysis.ProbeMessage, len(msgs))
	for i, m := range msgs {
		pm := analysis.ProbeMessage{TurnIdx: m.TurnIdx, Role: m.Role, Content: deref(m.Content),
			Requestor: deref(m.Requestor), CallID: deref(m.ToolCallID)}
		for _, c := range m.Calls {
			pm.Calls = append(pm.Calls, analysis.ProbeCall{ID: deref(c.CallID), Name: c.Name, Arguments: c.Arguments})
		}
		out[i] = pm
	}
	return out
}

// episodeChecks reruns the probes when episodes changed and fills the P0
// counts of the run's files and of the workspace.
func episodeChecks(ctx context.Context, ws *queries.Workspace, changed bool, st *Stats) error {
	if changed {
		if _, err := RunProbes(ctx, ws); err != nil {
			return fmt.Errorf("ingest: probes: %w", err)
		}
	}
	if st.TotalEpisodes == 0 {
		return nil
	}
	rates, err := queries.ProbeRatesByFile(ctx, ws.Conn())
	if err != nil {
		return err
	}
	byFile := map[string]int{}
	for _, r := range rates {
		if r.Probe == analysis.ProbeP0 {
			byFile[r.SourceFile] = r.Hits
			st.TaskMismatch += r.Hits
		}
	}
	for i := range st.EpisodeFiles {
		st.EpisodeFiles[i].TaskMismatch = byFile[st.EpisodeFiles[i].Path]
	}
	return nil
}
