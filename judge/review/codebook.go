package review

// Code is one entry of the review codebook (SPEC section 7).
type Code struct {
	Name  string
	Group string // "tau2" for tau2's user-review tags, else the SPEC 6.2 family
	Key   string // the keyboard key that records it ("" for none)
}

// Codebook lists the codes a reviewer can record: tau2's user-review tags
// (keys 1-9 and 0), then the families and modes of SPEC 6.2.
var Codebook = []Code{
	{"hallucination", "tau2", "1"},
	{"incorrect_interpretation", "tau2", "2"},
	{"guideline_violation", "tau2", "3"},
	{"revealed_info_early", "tau2", "4"},
	{"inconsistent_behavior", "tau2", "5"},
	{"premature_termination", "tau2", "6"},
	{"missed_required_action", "tau2", "7"},
	{"wrong_sequence", "tau2", "8"},
	{"interruption_error", "tau2", "9"},
	{"other", "tau2", "0"},
	{"disclosure", "disclosure", ""},
	{"volunteers_unasked_info", "disclosure", ""},
	{"preempts_diagnosis", "disclosure", ""},
	{"dumps_blueprint", "disclosure", ""},
	{"groundedness", "groundedness", ""},
	{"unsupported_state", "groundedness", ""},
	{"claimed_unexecuted_action", "groundedness", ""},
	{"self_contradiction", "groundedness", ""},
	{"fabricates_unknown_info", "groundedness", ""},
	{"goal_deviation", "goal_deviation", ""},
	{"premature_stop", "goal_deviation", ""},
	{"accepts_forbidden_outcome", "goal_deviation", ""},
	{"accepts_insufficient_outcome", "goal_deviation", ""},
	{"abandons_goal", "goal_deviation", ""},
	{"omitted_info", "omitted_info", ""},
	{"withholds_asked_info", "omitted_info", ""},
	{"skips_required_action", "omitted_info", ""},
}

// Severities a simulator error can have (SPEC section 7): critical means
// it changed whether the task could succeed.
var Severities = []string{"minor", "critical_hindered", "critical_helped"}

// ValidCode reports whether name is in the codebook.
func ValidCode(name string) bool {
	for _, c := range Codebook {
		if c.Name == name {
			return true
		}
	}
	return false
}

// ValidSeverity reports whether s is a severity.
func ValidSeverity(s string) bool {
	for _, v := range Severities {
		if v == s {
			return true
		}
	}
	return false
}

// Family is the family of a code for the LLM reviewer's per-family
// accuracy: the SPEC 6.2 family of its modes, and, for tau2's flat list of
// user-review tags, the tag itself. A code outside the codebook is its own
// family.
func Family(code string) string {
	for _, c := range Codebook {
		if c.Name == code {
			if c.Group == "tau2" {
				return c.Name
			}
			return c.Group
		}
	}
	return code
}
