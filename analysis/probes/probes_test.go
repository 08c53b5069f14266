package probes

import (
	"encoding/json"
	"strings"
	"testing"
)

func msg(turn int, role, content string, calls ...ViewCall) ViewMessage {
	return ViewMessage{TurnIdx: turn, Role: role, Content: content, Calls: calls}
}

func toolResult(turn int, content string) ViewMessage {
	return ViewMessage{TurnIdx: turn, Role: "tool", Content: content, Requestor: "user"}
}

func call(name, args string) ViewCall {
	return ViewCall{Name: name, Arguments: json.RawMessage(args)}
}

func airlineTask() *ViewTask {
	known := "You are Mia Li.\nYour user id is mia_li_3668."
	return &ViewTask{KnownInfo: known, Blueprint: []string{"You want to fly to Seattle.", known}}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Mia\u202fLi", "mia li"},                      // narrow no-break space
		{"Mia\u00a0Li", "mia li"},                      // no-break space
		{"**Mia Li**", "mia li"},                       // markdown emphasis
		{"STRASSE", "strasse"},                         // case folding
		{"\uff2d\uff49\uff41", "mia"},                  // NFKC: full-width letters
		{"I\u2019ve  turned\n off", "i've turned off"}, // typographic apostrophe, white space
	} {
		if got := Normalize(c.in); got != c.want {
			t.Errorf("Normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func probes(e *View, p string) []Finding {
	return Run(e, map[string]bool{p: true}).Findings
}

func TestProbeTaskMismatch(t *testing.T) {
	cases := []struct {
		name string
		msgs []ViewMessage
		want int
	}{
		{"another customer's id flags", []ViewMessage{msg(0, "assistant", "Hi! How can I help?"), msg(1, "user", "My user id is omar_davis_3817.")}, 1},
		{"own id does not", []ViewMessage{msg(1, "user", "My user id is mia_li_3668.")}, 0},
		{"own and foreign together do not", []ViewMessage{msg(1, "user", "I am mia_li_3668, booking for omar_davis_3817.")}, 0},
		{"payment id is no identity", []ViewMessage{msg(1, "user", "Use credit_card_4421486 please.")}, 0},
		{"id the agent said first is not the user's", []ViewMessage{msg(0, "assistant", "The reservation belongs to omar_davis_3817."), msg(1, "user", "Yes, omar_davis_3817 is me.")}, 0},
		{"no id at all does not", []ViewMessage{msg(1, "user", "I want to cancel.")}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probes(&View{SimulationID: "s", Task: airlineTask(), Messages: c.msgs}, ProbeP0)
			if len(got) != c.want {
				t.Errorf("%d findings %v, want %d", len(got), got, c.want)
			}
		})
	}
}

func TestProbeDisclosure(t *testing.T) {
	cases := []struct {
		name    string
		msgs    []ViewMessage
		p1, p1a int
	}{
		{"name and id in the first message", []ViewMessage{msg(0, "assistant", "Hi! How can I help you today?"),
			msg(1, "user", "Hi, I'm Mia Li (user id mia_li_3668) and I want to fly.")}, 2, 1},
		{"name written with U+202F still matches", []ViewMessage{msg(0, "assistant", "Hi!"),
			msg(1, "user", "Hi, I'm **Mia\u202fLi** and I want to fly.")}, 1, 1},
		{"after the agent asked for the user id", []ViewMessage{msg(0, "assistant", "Hi!"), msg(1, "user", "I want to fly."),
			msg(2, "assistant", "Could you give me your user id?"), msg(3, "user", "It is mia_li_3668.")}, 0, 0},
		{"later and unasked: P1 but not P1a", []ViewMessage{msg(0, "assistant", "Hi!"), msg(1, "user", "I want to fly."),
			msg(2, "assistant", "Where to?"), msg(3, "user", "Seattle. I am mia_li_3668.")}, 1, 0},
		{"a longer id containing it is not it", []ViewMessage{msg(1, "user", "I am mia_li_36689.")}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := &View{SimulationID: "s", Task: airlineTask(), Messages: c.msgs}
			if got := probes(e, ProbeP1); len(got) != c.p1 {
				t.Errorf("P1: %d findings %v, want %d", len(got), got, c.p1)
			}
			if got := probes(e, ProbeP1a); len(got) != c.p1a {
				t.Errorf("P1a: %d findings %v, want %d", len(got), got, c.p1a)
			}
		})
	}
}

func telecomTask() *ViewTask {
	return &ViewTask{
		UserActions: []GoldAction{{Name: "toggle_airplane_mode", Arguments: json.RawMessage(`{}`)},
			{Name: "set_network_mode_preference", Arguments: json.RawMessage(`{"mode": "4g_5g_preferred"}`)}},
		InitActions: []GoldAction{{Name: "turn_airplane_mode_on", Arguments: json.RawMessage(`{}`)},
			{Name: "turn_data_off", Arguments: json.RawMessage(`{}`)}},
	}
}

func TestProbeMissedWrite(t *testing.T) {
	cases := []struct {
		name  string
		calls []ViewCall
		want  []string
	}{
		{"both made", []ViewCall{call("toggle_airplane_mode", `{}`), call("set_network_mode_preference", `{"mode":"4g_5g_preferred"}`)}, nil},
		{"wrong argument misses", []ViewCall{call("toggle_airplane_mode", `{}`), call("set_network_mode_preference", `{"mode":"3g_only"}`)}, []string{"set_network_mode_preference"}},
		{"none made", nil, []string{"toggle_airplane_mode", "set_network_mode_preference"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var msgs []ViewMessage
			for i, cl := range c.calls {
				msgs = append(msgs, msg(i, "user", "", cl))
			}
			got := probes(&View{SimulationID: "s", Task: telecomTask(), Messages: msgs}, ProbeP2)
			var names []string
			for _, f := range got {
				names = append(names, f.Detail["action"])
			}
			if strings.Join(names, ",") != strings.Join(c.want, ",") {
				t.Errorf("missed %v, want %v", names, c.want)
			}
		})
	}
}

func TestProbeDeviceState(t *testing.T) {
	cases := []struct {
		name string
		msgs []ViewMessage
		want int
	}{
		{"says off while the initial state is on", []ViewMessage{msg(1, "user", "I don't see an airplane icon, so airplane mode is off.")}, 1},
		{"says on: true", []ViewMessage{msg(1, "user", "Airplane mode is on.")}, 0},
		{"negated: 'is not on' is off", []ViewMessage{msg(1, "user", "Airplane mode is not on.")}, 1},
		{"after the toggle result it is off", []ViewMessage{msg(1, "user", "", call("toggle_airplane_mode", `{}`)),
			toolResult(2, "Airplane Mode is now OFF."), msg(3, "user", "Airplane mode is off now.")}, 0},
		{"status bar shows it", []ViewMessage{msg(1, "user", "", call("check_status_bar", `{}`)),
			toolResult(2, "Status Bar: ✈️ Airplane Mode | 🔋 80%"), msg(3, "user", "Airplane mode is currently off.")}, 1},
		{"a question is no assertion", []ViewMessage{msg(1, "user", "Is airplane mode off?")}, 0},
		{"a hypothetical is no assertion", []ViewMessage{msg(1, "user", "Should I check if mobile data is enabled.")}, 0},
		{"mobile data asserted on while off", []ViewMessage{msg(1, "user", "Mobile data is enabled.")}, 1},
		{"unknown property state is not judged", []ViewMessage{msg(1, "user", "Data roaming is on.")}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probes(&View{SimulationID: "s", Task: telecomTask(), Messages: c.msgs}, ProbeP3)
			if len(got) != c.want {
				t.Errorf("%d findings %v, want %d", len(got), got, c.want)
			}
		})
	}
}

func TestProbeStopOnConfirmation(t *testing.T) {
	ask := msg(4, "assistant", "I will cancel reservation ABC123. Do you confirm (yes/no)?")
	cases := []struct {
		name string
		msgs []ViewMessage
		want int
	}{
		{"yes + STOP after a confirmation question", []ViewMessage{ask, msg(5, "user", "Yes, I confirm. ###STOP###")}, 1},
		{"no + STOP", []ViewMessage{ask, msg(5, "user", "No, leave it. ###STOP###")}, 0},
		{"yes without STOP", []ViewMessage{ask, msg(5, "user", "Yes.")}, 0},
		{"STOP after the agent acted", []ViewMessage{msg(4, "assistant", "Done, it is cancelled."), msg(5, "user", "Thanks! ###STOP###")}, 0},
		{"yes + TRANSFER after a confirmation question", []ViewMessage{ask, msg(5, "user", "Yes, go ahead. ###TRANSFER###")}, 1},
		{"yes + OUT-OF-SCOPE after a confirmation question", []ViewMessage{ask, msg(5, "user", "Yes please. ###OUT-OF-SCOPE###")}, 1},
		{"no + OUT-OF-SCOPE", []ViewMessage{ask, msg(5, "user", "No. ###OUT-OF-SCOPE###")}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probes(&View{SimulationID: "s", Messages: c.msgs}, ProbeP4)
			if len(got) != c.want {
				t.Errorf("%d findings %v, want %d", len(got), got, c.want)
			}
		})
	}
}

func TestProbeClaimedAction(t *testing.T) {
	cases := []struct {
		name string
		msgs []ViewMessage
		want int
	}{
		{"claim without a call", []ViewMessage{msg(1, "user", "I've turned off airplane mode, still nothing.")}, 1},
		{"claim after the call", []ViewMessage{msg(1, "user", "", call("toggle_airplane_mode", `{}`)), msg(2, "user", "I turned off airplane mode.")}, 0},
		{"restart claim without reboot", []ViewMessage{msg(1, "user", "I restarted my phone.")}, 1},
		{"a question is no claim", []ViewMessage{msg(1, "user", "Should I reset the APN settings?")}, 0},
		{"a supposition is no claim", []ViewMessage{msg(1, "user", "What if I turned off mobile data.")}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probes(&View{SimulationID: "s", Task: telecomTask(), Messages: c.msgs}, ProbeP5)
			if len(got) != c.want {
				t.Errorf("%d findings %v, want %d", len(got), got, c.want)
			}
		})
	}
}

func TestProbeProtocol(t *testing.T) {
	msgs := []ViewMessage{
		msg(1, "user", "", call("check_status_bar", `{}`)),                               // fine
		msg(3, "user", "", call("check_status_bar", `{}`), call("run_speed_test", `{}`)), // two calls
		msg(5, "user", "Let me check.", call("check_status_bar", `{}`)),                  // text and call
		msg(7, "user", "Thanks."), // fine
	}
	got := probes(&View{SimulationID: "s", Messages: msgs}, ProbeP6)
	if len(got) != 2 || *got[0].TurnIdx != 3 || *got[1].TurnIdx != 5 {
		t.Errorf("findings %v, want turns 3 and 5", got)
	}
	// Applicability: a user without tool calls is not counted.
	r := Run(&View{SimulationID: "s", Messages: []ViewMessage{msg(1, "user", "hi")}}, nil)
	if r.Applies[ProbeP6] || r.Applies[ProbeP2] || !r.Applies[ProbeP4] {
		t.Errorf("applies %v: want P6 and P2 not applicable, P4 applicable", r.Applies)
	}
}
