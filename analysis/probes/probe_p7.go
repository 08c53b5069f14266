package probes

import "strings"

// The probe of this file.
const (
	ProbeP7 = "P7"
)

func init() {
	register(Probe{Name: ProbeP7, Description: "transfer without a handoff: ###TRANSFER### though the agent never transferred the user nor spoke of a transfer",
		Applies:    func(*View) bool { return true },
		Find:       ProbeUnfoundedTransfer,
		ReviewCode: "premature_termination"})
}

// ProbeUnfoundedTransfer (P7): the last user message holds ###TRANSFER###,
// which a tau2 user simulator is told to write once the agent has
// transferred it to a human, yet no agent message before it called a
// transfer tool (transfer_to_human_agents, any call whose name holds
// "transfer") or spoke of a transfer ("transfer", "transferring",
// "transferred"): the user ended the episode on a handoff that never
// happened. One finding, at that message.
func ProbeUnfoundedTransfer(e *View) []Finding {
	last := lastUserMessage(e)
	if last < 0 || !strings.Contains(e.Messages[last].Content, "###TRANSFER###") {
		return nil
	}
	for i := 0; i < last; i++ {
		m := &e.Messages[i]
		if m.Role != "assistant" {
			continue
		}
		for _, c := range m.Calls {
			if strings.Contains(strings.ToLower(c.Name), "transfer") {
				return nil
			}
		}
		if strings.Contains(m.text(), "transfer") {
			return nil
		}
	}
	text := Normalize(withoutEndTokens(e.Messages[last].Content))
	return []Finding{{SimulationID: e.SimulationID, Probe: ProbeP7, TurnIdx: turn(e.Messages[last].TurnIdx),
		Evidence: span(text, 0, 0) + " ###TRANSFER###"}}
}
