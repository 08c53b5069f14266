package probes

import (
	"encoding/json"
	"testing"
)

// TestProbeMissedWriteSolo: in an episode without a simulated user (tau2's
// solo mode) the agent performs the user's actions, and P2 counts one done
// when tau2's action check would (Action.compare_with_tool_call: the same
// name; the compared arguments equal, compare_args or else the call's own
// names). With a simulated user only the user's calls count, as before.
func TestProbeMissedWriteSolo(t *testing.T) {
	toggle := GoldAction{Name: "toggle_airplane_mode", Arguments: json.RawMessage(`{}`)}
	apn := GoldAction{Name: "set_apn", Arguments: json.RawMessage(`{"apn": "internet", "mms": true}`), CompareArgs: []string{"apn"}}
	call := func(role, name, args string) ViewMessage {
		return ViewMessage{Role: role, Calls: []ViewCall{{ID: "c", Name: name, Arguments: json.RawMessage(args)}}}
	}
	cases := []struct {
		name   string
		noUser bool
		gold   GoldAction
		msgs   []ViewMessage
		missed bool
	}{
		{"solo: the agent's call is the action", true, toggle, []ViewMessage{call("assistant", "toggle_airplane_mode", `{}`)}, false},
		{"solo: no call", true, toggle, []ViewMessage{msg(0, "assistant", "###STOP###")}, true},
		{"solo: another tool", true, toggle, []ViewMessage{call("assistant", "reboot", `{}`)}, true},
		{"solo: compare_args only", true, apn, []ViewMessage{call("assistant", "set_apn", `{"apn": "internet", "mms": false}`)}, false},
		{"solo: compared argument differs", true, apn, []ViewMessage{call("assistant", "set_apn", `{"apn": "wap"}`)}, true},
		{"solo: the call's own names compared (tau2)", true, GoldAction{Name: "pay", Arguments: json.RawMessage(`{"amount": 5}`)},
			[]ViewMessage{call("assistant", "pay", `{"amount": 5, "note": "x"}`)}, true},
		{"with a user: the agent's call is not the user's", false, toggle, []ViewMessage{call("assistant", "toggle_airplane_mode", `{}`)}, true},
		{"with a user: the user's call", false, toggle, []ViewMessage{call("user", "toggle_airplane_mode", `{}`)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &View{SimulationID: "s", NoUser: c.noUser, Task: &ViewTask{UserActions: []GoldAction{c.gold}}, Messages: c.msgs}
			got := ProbeMissedWrite(e)
			if (len(got) == 1) != c.missed || len(got) > 1 {
				t.Errorf("findings %v, want missed = %v", got, c.missed)
			}
		})
	}
}

// TestRunProbesPlaceholder: no probe applies to a placeholder of a
// simulation that never ran, so it is in no probe's denominator.
func TestRunProbesPlaceholder(t *testing.T) {
	e := &View{SimulationID: "p", NoRun: true, Task: &ViewTask{UserActions: []GoldAction{{Name: "toggle_airplane_mode"}}}}
	r := Run(e, nil)
	for _, p := range Names() {
		if r.Applies[p] {
			t.Errorf("%s applies to a simulation that never ran", p)
		}
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings %v", r.Findings)
	}
	// The same episode that ran is in P2's and P7's denominators.
	e.NoRun = false
	if r := Run(e, nil); !r.Applies[ProbeP2] || !r.Applies[ProbeP7] {
		t.Errorf("applies %v, want P2 and P7", r.Applies)
	}
}
