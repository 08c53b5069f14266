package queries

// Conditions a generation is made under (SPEC section 3), the values of the
// generations.condition column. Defined here, the data model every package
// shares, and nowhere else: sim, sim/synth and reports use these.
const (
	CondProfile   = "profile"   // the developer's persona prefix
	CondNoProfile = "noprofile" // a generic developer prompt
	CondTerse     = "terse"     // a content-free terse-only prefix (ablation)
)

// Conditions lists the conditions in the order experiments name them.
func Conditions() []string { return []string{CondProfile, CondNoProfile, CondTerse} }
