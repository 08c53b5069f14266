package probes

import "testing"

func TestProbeUnfoundedTransfer(t *testing.T) {
	transferCall := ViewMessage{TurnIdx: 4, Role: "assistant", Calls: []ViewCall{{ID: "c1", Name: "transfer_to_human_agents"}}}
	cases := []struct {
		name string
		msgs []ViewMessage
		want int
	}{
		{"TRANSFER with no handoff", []ViewMessage{msg(4, "assistant", "Your reservation is cancelled."), msg(5, "user", "OK. ###TRANSFER###")}, 1},
		{"TRANSFER after the transfer tool", []ViewMessage{transferCall, msg(5, "assistant", "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON."), msg(6, "user", "###TRANSFER###")}, 0},
		{"TRANSFER after the tool alone", []ViewMessage{transferCall, msg(6, "user", "Thanks ###TRANSFER###")}, 0},
		{"TRANSFER after the agent spoke of one", []ViewMessage{msg(4, "assistant", "I'm transferring you to a human agent now."), msg(5, "user", "###TRANSFER###")}, 0},
		{"STOP with no handoff", []ViewMessage{msg(4, "assistant", "Done."), msg(5, "user", "Thanks ###STOP###")}, 0},
		{"TRANSFER not in the last user message", []ViewMessage{msg(1, "user", "###TRANSFER###"), msg(2, "assistant", "Still here?"), msg(3, "user", "Bye ###STOP###")}, 0},
		{"no user message", []ViewMessage{msg(1, "assistant", "Hello")}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := probes(&View{SimulationID: "s", Messages: c.msgs}, ProbeP7)
			if len(got) != c.want {
				t.Fatalf("%d findings %v, want %d", len(got), got, c.want)
			}
			if c.want == 1 && (got[0].TurnIdx == nil || *got[0].TurnIdx != c.msgs[len(c.msgs)-1].TurnIdx || got[0].Evidence != "ok. ###TRANSFER###") {
				t.Errorf("finding %+v, want the last user message's turn and its text", got[0])
			}
		})
	}
	if r := Run(&View{SimulationID: "s", Messages: cases[4].msgs}, nil); !r.Applies[ProbeP7] {
		t.Error("P7 does not apply to every episode")
	}
}
