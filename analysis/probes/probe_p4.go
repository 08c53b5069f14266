package probes

import (
	"regexp"
	"strings"
)

// The probe of this file.
const (
	ProbeP4 = "P4"
)

func init() {
	register(Probe{Name: ProbeP4, Description: "stop on confirmation: an end token (###STOP###, ###TRANSFER###, ###OUT-OF-SCOPE###) while affirming a confirmation the agent just asked for",
		Applies:    func(*View) bool { return true },
		Find:       ProbeStopOnConfirmation,
		ReviewCode: "premature_termination"})
}

var (
	confirmAsk = regexp.MustCompile(`\b(?:confirm|proceed|shall i|should i|would you like me to|do you want me to|go ahead|yes/no|\(yes\)|yes or no)\b`)
	affirmRE   = regexp.MustCompile(`^(?:yes|yeah|yep|sure|ok|okay|confirm|confirmed|i confirm|please proceed|proceed|go ahead|please go ahead|please do|that's correct|correct|sounds good)\b`)
)

// ProbeStopOnConfirmation (P4): the last user message holds an end token
// (EndTokens: ###STOP###, ###TRANSFER### or ###OUT-OF-SCOPE###) and
// affirms ("yes", "please proceed", "I confirm", ...) a confirmation the
// agent asked for in its message just before (a question with "confirm",
// "proceed", "shall I", "would you like me to", ...): the user ended the
// conversation before the agent could act on the answer.
func ProbeStopOnConfirmation(e *View) []Finding {
	last := lastUserMessage(e)
	if last < 0 || endToken(e.Messages[last].Content) == "" {
		return nil
	}
	prev := -1
	for i := last - 1; i >= 0; i-- {
		if e.Messages[i].Role == "assistant" && e.Messages[i].Content != "" {
			prev = i
			break
		}
		if e.Messages[i].Role == "user" {
			return nil
		}
	}
	if prev < 0 {
		return nil
	}
	// The user's short last message first: most do not affirm, and then
	// the agent's message is not read.
	text := Normalize(withoutEndTokens(e.Messages[last].Content))
	text = strings.TrimLeft(text, " \"'*-")
	if !affirmRE.MatchString(text) {
		return nil
	}
	ask := e.Messages[prev].text()
	if !strings.Contains(ask, "?") || !confirmAsk.MatchString(ask) {
		return nil
	}
	return []Finding{{SimulationID: e.SimulationID, Probe: ProbeP4, TurnIdx: turn(e.Messages[last].TurnIdx),
		Evidence: span(text, 0, 0), Detail: map[string]string{"asked": span(ask, len(ask), len(ask))}}}
}
