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

// ProbeMissedWrite (P2): a gold action with requestor user has no user tool
// call of the same name with equal compared arguments. One finding per
// missed action, about the episode as a whole.
func ProbeMissedWrite(e *View) []Finding {
	if e.Task == nil {
		return nil
	}
	var out []Finding
	for _, a := range e.Task.UserActions {
		found := false
		for _, m := range e.Messages {
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
