package probes

import (
	"strings"
)

// The probe of this file.
const (
	ProbeP6 = "P6"
)

func init() {
	register(Probe{Name: ProbeP6, Description: "protocol violation: several tool calls in one user message, or text with a tool call",
		Applies:    hasUserToolCall,
		Find:       ProbeProtocol,
		ReviewCode: "guideline_violation"})
}

// ProbeProtocol (P6): a user message with more than one tool call, or with
// text and a tool call together.
func ProbeProtocol(e *View) []Finding {
	var out []Finding
	for mi, m := range e.Messages {
		if m.Role != "user" || len(m.Calls) == 0 {
			continue
		}
		names := make([]string, len(m.Calls))
		for i, c := range m.Calls {
			names[i] = c.Name
		}
		switch {
		case len(m.Calls) > 1:
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP6, TurnIdx: turn(m.TurnIdx),
				Evidence: "tool calls " + strings.Join(names, ", "), Detail: map[string]string{"violation": "several calls"}})
		case strings.TrimSpace(m.Content) != "":
			n := e.Messages[mi].text()
			out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP6, TurnIdx: turn(m.TurnIdx),
				Evidence: span(n, 0, 0) + " + call " + names[0], Detail: map[string]string{"violation": "text and call"}})
		}
	}
	return out
}
