package probes

import (
	"encoding/json"
	"regexp"
	"strings"
)

// The probe of this file.
const (
	ProbeP3 = "P3"
)

func init() {
	register(Probe{Name: ProbeP3, Description: "contradicted device state: the user asserts a state that differs from the true one",
		Applies:    withDevice,
		Find:       ProbeDeviceState,
		ReviewCode: "inconsistent_behavior"})
}

// Device properties tracked by P3.
const (
	propAirplane    = "airplane mode"
	propData        = "mobile data"
	propRoaming     = "data roaming"
	propDataSaver   = "data saver"
	propWifiCalling = "wi-fi calling"
)

// initEffects maps user-side initialization actions to the state they set.
var initEffects = map[string][2]string{
	"turn_airplane_mode_on":    {propAirplane, "on"},
	"turn_airplane_mode_off":   {propAirplane, "off"},
	"turn_data_off":            {propData, "off"},
	"turn_data_on":             {propData, "on"},
	"turn_roaming_off":         {propRoaming, "off"},
	"turn_roaming_on":          {propRoaming, "on"},
	"turn_data_saver_mode_on":  {propDataSaver, "on"},
	"turn_data_saver_mode_off": {propDataSaver, "off"},
}

// resultRE reads device state from user tool results (tau2 telecom):
// "Airplane Mode is now ON.", "Airplane Mode: OFF", "Mobile Data Enabled:
// Yes", "Data Roaming is now ON.", "Data Saver mode is OFF.", "Wi-Fi Calling
// is currently turned ON.".
var resultRE = regexp.MustCompile(`(airplane mode|mobile data|data roaming|data saver(?: mode)?|wi-fi calling)(?: enabled)?(?: is)?(?: now| currently)?(?: turned)?:? (on|off|yes|no)\b`)

// deviceProps are the phrases one of which every match of resultRE and
// assertRE contains ("data roaming" contains "roaming").
var deviceProps = []string{"airplane mode", "mobile data", "roaming", "data saver", "wi-fi calling"}

func observe(state map[string]string, norm string) {
	if !strings.Contains(norm, "status bar:") && !containsAny(norm, deviceProps) {
		return // nothing resultRE or the status bar could say
	}
	for _, line := range strings.Split(norm, "\n") {
		if strings.HasPrefix(line, "status bar:") {
			state[propAirplane] = onOff(strings.Contains(line, "airplane mode"))
			state[propDataSaver] = onOff(strings.Contains(line, "data saver"))
			continue
		}
		for _, m := range resultRE.FindAllStringSubmatch(line, -1) {
			state[propKey(m[1])] = map[string]string{"on": "on", "yes": "on", "off": "off", "no": "off"}[m[2]]
		}
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func propKey(s string) string {
	switch {
	case strings.HasPrefix(s, "data saver"):
		return propDataSaver
	case s == "roaming":
		return propRoaming
	}
	return s
}

// assertRE finds a user's assertion of a device state in one clause:
// "<property> is [currently|now|still|already] [not] [turned|switched] on|off|enabled|disabled".
var assertRE = regexp.MustCompile(`(airplane mode|mobile data|data roaming|roaming|data saver(?: mode)?|wi-fi calling) (?:is|was|seems to be|appears to be|shows as|shows)(?: (?:currently|now|still|already|definitely|also|actually))*( not)?(?: (?:turned|switched|set to))? (on|off|enabled|disabled|active|inactive)\b`)

// hypothetical marks a clause that asks, plans or supposes rather than asserts.
var hypothetical = regexp.MustCompile(`\b(?:if|whether|should|could|would|can you|want|try|let me|make sure|need to|to turn|how|once|when|after|until|unless|ensure|ensuring|check|checking|confirm|verify)\b`)

// negatedRE marks a clause whose assertion is negated before it ("it
// doesn't indicate that airplane mode is on").
var negatedRE = regexp.MustCompile(`(?:n't|\bnot|\bnever) (?:indicate|show|say|seem|think|look like|appear|believe|mean)s?(?: that)?(?: the)? $`)

// clauseRE splits a message into clauses at sentence ends, semicolons,
// dashes and line breaks, keeping each terminator.
var clauseRE = regexp.MustCompile(`[^.!?;\n\x{2014}]+[.!?;\n\x{2014}]?`)

// ProbeDeviceState (P3): the user asserts a device state (airplane mode,
// mobile data, roaming, data saver, Wi-Fi calling) that differs from the
// true state at that point: the user-side initialization actions, then what
// each earlier user tool result showed. Negation ("is not on") flips the
// assertion; questions and hypotheticals are not assertions; a property
// whose true state is unknown is not judged.
func ProbeDeviceState(e *View) []Finding {
	state := map[string]string{}
	if e.Task != nil {
		for _, a := range e.Task.InitActions {
			if eff, ok := initEffects[a.Name]; ok {
				state[eff[0]] = eff[1]
			}
			if a.Name == "set_wifi_calling" {
				var args struct {
					Enabled *bool `json:"enabled"`
				}
				if json.Unmarshal(a.Arguments, &args) == nil && args.Enabled != nil {
					state[propWifiCalling] = onOff(*args.Enabled)
				}
			}
		}
	}
	var out []Finding
	for mi, m := range e.Messages {
		if m.Role == "tool" && m.Requestor == "user" {
			observe(state, strings.ToLower(m.Content))
			continue
		}
		if m.Role != "user" || m.Content == "" || len(state) == 0 {
			continue // with no state known, no assertion can differ from it
		}
		norm := e.Messages[mi].text()
		if !containsAny(norm, deviceProps) {
			continue // assertRE needs one of them
		}
		for _, loc := range clauseRE.FindAllStringIndex(norm, -1) {
			clause := norm[loc[0]:loc[1]]
			if strings.HasSuffix(clause, "?") || hypothetical.MatchString(clause) {
				continue
			}
			for _, a := range assertRE.FindAllStringSubmatchIndex(clause, -1) {
				prop := propKey(clause[a[2]:a[3]])
				said := map[string]string{"on": "on", "enabled": "on", "active": "on", "off": "off", "disabled": "off", "inactive": "off"}[clause[a[6]:a[7]]]
				if a[4] >= 0 {
					said = map[string]string{"on": "off", "off": "on"}[said]
				}
				if negatedRE.MatchString(clause[:a[0]]) {
					said = map[string]string{"on": "off", "off": "on"}[said]
				}
				if truth, ok := state[prop]; ok && truth != said {
					out = append(out, Finding{SimulationID: e.SimulationID, Probe: ProbeP3, TurnIdx: turn(m.TurnIdx),
						Evidence: span(norm, loc[0]+a[0], loc[0]+a[1]),
						Detail:   map[string]string{"property": prop, "said": said, "true": truth}})
				}
			}
		}
	}
	return out
}
