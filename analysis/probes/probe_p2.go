package probes

import (
	"encoding/json"
	"reflect"
)

// The probe of this file.
const (
	ProbeP2 = "P2"
)

func init() {
	register(Probe{Name: ProbeP2, Description: "missed gold user write: a gold user action with no matching user tool call",
		Applies:    func(e *View) bool { return e.Task != nil && len(e.Task.UserActions) > 0 },
		Find:       ProbeMissedWrite,
		ReviewCode: "missed_required_action"})
}

// argsMatch reports whether a call's arguments equal a gold action's on the
// compared names (all of the gold's when CompareArgs is nil), as tau2's
// action check does.
func argsMatch(gold GoldAction, got json.RawMessage) bool {
	var g, c map[string]any
	_ = json.Unmarshal(gold.Arguments, &g)
	_ = json.Unmarshal(got, &c)
	keys := gold.CompareArgs
	if keys == nil {
		keys = make([]string, 0, len(g))
		for k := range g {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		if !reflect.DeepEqual(g[k], c[k]) {
			return false
		}
	}
	return true
}

// tau2ActionMatch reports whether a call matches a gold action as tau2's
// action check has it (Action.compare_with_tool_call, data_model/tasks.py):
// the same name, and equal values of the compared argument names, which
// are compare_args, or the call's own argument names when it is null; no
// names to compare is a match.
func tau2ActionMatch(gold GoldAction, name string, got json.RawMessage) bool {
	if gold.Name != name {
		return false
	}
	var g, c map[string]any
	_ = json.Unmarshal(gold.Arguments, &g)
	_ = json.Unmarshal(got, &c)
	keys := gold.CompareArgs
	if keys == nil {
		keys = make([]string, 0, len(c))
		for k := range c {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		gv, gok := g[k]
		cv, cok := c[k]
		if gok != cok || !reflect.DeepEqual(gv, cv) {
			return false
		}
	}
	return true
}

// ProbeMissedWrite (P2): a gold action with requestor user has no user tool
// call of the same name with equal compared arguments. One finding per
// missed action, about the episode as a whole. In an episode without a
// simulated user (solo mode) the agent performs the user's actions, and
// an action is done when tau2's action check finds it among the calls of
// either side (tau2ActionMatch), as tau2 scores it.
func ProbeMissedWrite(e *View) []Finding {
	if e.Task == nil {
		return nil
	}
	var out []Finding
	for _, a := range e.Task.UserActions {
		found := false
		for _, m := range e.Messages {
			if e.NoUser {
				for _, c := range m.Calls {
					if (m.Role == "user" || m.Role == "assistant") && tau2ActionMatch(a, c.Name, c.Arguments) {
						found = true
					}
				}
				continue
			}
			if m.Role != "user" {
				continue
			}
			for _, c := range m.Calls {
				if c.Name == a.Name && argsMatch(a, c.Arguments) {
					found = true
				}
			}
		}
		if !found {
			args := string(a.Arguments)
			if args == "" || args == "null" {
				args = "{}"
			}
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP2,
				Evidence: "no user call " + a.Name + " " + args, Detail: map[string]string{"action": a.Name}})
		}
	}
	return out
}
