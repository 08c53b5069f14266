package probes

import (
	"regexp"
	"strings"
)

// The probe of this file.
const (
	ProbeP5 = "P5"
)

func init() {
	register(Probe{Name: ProbeP5, Description: "claimed action without a call: the user says it did a device action it never called",
		Applies:    withDevice,
		Find:       ProbeClaimedAction,
		ReviewCode: "hallucination"})
}

// claimRE finds a first-person claim of a device action.
var claimRE = regexp.MustCompile(`\bi(?:'ve| have)?(?: just| now| already| also| then)? (turned|switched|toggled|enabled|disabled|restarted|rebooted|reset|reseated|removed|reinserted|re-inserted|changed|set) ([^.!?;\n]*)`)

// claimTool maps a claim to the user tool that would have done it, or "".
func claimTool(verb, rest string) string {
	switch {
	case verb == "restarted" || verb == "rebooted":
		return "reboot_device"
	case strings.Contains(rest, "sim"):
		return "reseat_sim_card"
	case strings.Contains(rest, "airplane"):
		return "toggle_airplane_mode"
	case strings.Contains(rest, "data saver"):
		return "toggle_data_saver_mode"
	case strings.Contains(rest, "roaming"):
		return "toggle_roaming"
	case strings.Contains(rest, "wi-fi calling") || strings.Contains(rest, "wifi calling"):
		return "toggle_wifi_calling"
	case strings.Contains(rest, "apn"):
		return "reset_apn_settings"
	case strings.Contains(rest, "network mode") || strings.Contains(rest, "network preference") || strings.Contains(rest, "preferred network"):
		return "set_network_mode_preference"
	case strings.Contains(rest, "mobile data") || strings.HasPrefix(rest, "data ") || strings.HasPrefix(rest, "off data") || strings.HasPrefix(rest, "on data") || strings.HasPrefix(rest, "off mobile") || strings.HasPrefix(rest, "on mobile") || strings.HasPrefix(rest, "on the data") || strings.HasPrefix(rest, "off the data"):
		return "toggle_data"
	case verb == "restarted":
		return "reboot_device"
	}
	return ""
}

// apnTools are the calls that satisfy an APN claim.
var equivalentTools = map[string][]string{
	"reset_apn_settings": {"reset_apn_settings", "set_apn_settings"},
}

// ProbeClaimedAction (P5): a user message says the user did a device
// action ("I've turned off airplane mode", "I restarted my phone") and no
// earlier user tool call has the tool that does it.
func ProbeClaimedAction(e *View) []Finding {
	called := map[string]bool{}
	var out []Finding
	for mi, m := range e.Messages {
		if m.Role != "user" {
			continue
		}
		if m.Content != "" {
			norm := e.Messages[mi].text()
			for _, c := range claimRE.FindAllStringSubmatchIndex(norm, -1) {
				tool := claimTool(norm[c[2]:c[3]], norm[c[4]:c[5]])
				if tool == "" || notAClaim(norm, c[0], c[1]) {
					continue
				}
				ok := called[tool]
				for _, t := range equivalentTools[tool] {
					ok = ok || called[t]
				}
				if !ok {
					out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP5, TurnIdx: turn(m.TurnIdx),
						Evidence: span(norm, c[0], c[1]), Detail: map[string]string{"tool": tool}})
				}
			}
		}
		for _, c := range m.Calls {
			called[c.Name] = true
		}
	}
	return out
}

// modalRE marks "i <verb>" that follows a modal or conjunction ("should i
// reset", "if i restarted"): a question or supposition, not a claim.
var modalRE = regexp.MustCompile(`\b(?:should|can|could|would|shall|will|do|did|may|might|must|if|when|once|after|before|until|whether|so that|unless)\s*$`)

// notAClaim reports whether the claim at [lo, hi) of norm is in a question
// or follows a modal.
func notAClaim(norm string, lo, hi int) bool {
	if modalRE.MatchString(norm[:lo]) {
		return true
	}
	end := strings.IndexAny(norm[hi:], ".!?\n")
	return end >= 0 && norm[hi+end] == '?'
}
