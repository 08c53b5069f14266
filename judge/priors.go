package judge

// cuePriors are the prior weights of the cue features, per move (approve,
// critical, directive, inquiry, other), written by hand from the labelling
// rules of GUIDE.md and SPEC section 4, before looking at any validation
// message. Training shrinks every weight toward its prior instead of toward
// zero (a Gaussian prior centred on the rule), so the rules hold where the
// training developers are silent (most approvals in the corpus come from one
// developer's "continue") and the data corrects them where they speak.
var cuePriors = map[string][NumMoves]float64{
	// Fault first: words and pasted logs that show a fault.
	"q:fault":         {-0.5, 1.5, 0, 0, 0},
	"q:fault_still":   {0, 1, 0, 0, 0},
	"q:still":         {-0.5, 1, 0, 0, 0},
	"q:negstate":      {-0.5, 1, 0, 0, 0},
	"q:still_any":     {0, 1, 0, 0, 0},
	"q:complaint":     {-0.5, 1, 0, 0, 0},
	"q:experience":    {0, 0.5, 0, 0, 0},
	"q:success":       {0.5, -1, 0.5, 0, 0},
	"q:exp_fault":     {0, 1, 0, 0, 0},
	"q:weak_still":    {0, 1, 0, 0, 0},
	"q:pushback":      {-0.5, 1, 0, 0, 0},
	"q:no_open":       {-0.5, 0.5, 0, 0, 0},
	"q:correction":    {0, 0.5, 0, 0, 0},
	"q:why_fault":     {0, 1.5, 0, -0.5, 0},
	"q:why_you":       {-0.5, 2, 0, -0.5, 0},
	"q:exclaim_multi": {0, 0.5, 0, 0, 0},
	"q:log":           {-0.5, 1, 0, 0, 0},
	"q:log_noprose":   {0, 1.5, 0, 0, 0},
	"q:log_first":     {0, 1, 0, 0, 0},
	"q:qmark_fault":   {0, 0.5, 0, 0, 0},
	// Requests for action, including those phrased as questions.
	"q:request_first": {0, 0, 1, 0, 0},
	"q:request_start": {0, 0, 0.5, 0, 0},
	"q:request_end":   {0, 0, 1, 0, 0},
	"q:qmark_request": {0, 0, 1, 0, 0},
	// Requests for information.
	"q:qmark_end":     {0, 0, 0, 1.5, 0},
	"q:qword_first":   {0, 0, 0, 1, 0},
	"q:qword_start":   {0, 0, 0, 0.5, 0},
	"q:qparticle":     {0, 0, 0, 0.5, 0},
	"q:explain_start": {0, 0, 0, 1.5, 0},
	"q:explain_first": {0, 0, 0, 2, 0},
	"q:modal":         {0, 0, 1, -0.5, 0},
	"q:weak_fix":      {0, 1, 0, 0, 0},
	"q:q_header":      {0, 0, 0, 4, 0},
	// Acceptance with nothing new.
	"q:approve_all":    {3, 0, 0, 0, 0},
	"q:proceed_short":  {2, 0, 0, 0, 0},
	"q:done_short":     {1.5, 0, 0, 0, 0},
	"q:short_ag_offer": {0.5, 0, 0, 0, 0},
	// None of the four.
	"q:empty":     {0, 0, 0, 0, 3},
	"q:blank":     {0, 0, 0, 0, 2},
	"q:bare_path": {0, 0, 0, 0, 2},
	"q:slash":     {0, 0, 0, 0, 1},
	"q:one_word":  {0, 0, 0, 0, 0.5},
	// Fragments and pastes (fragment.go): the guide labels them other.
	// A typed shell command leans toward other. Pasted agent prose (an
	// assistant's answer pasted back; cue agent_prose) has no prior: the
	// careful labels read most of it as the work it relays (directive or
	// critical), and a prior toward other cost 12 labels of two developers
	// for 3 gained, leave-one-repository-out (issue 14).
	"q:fragment":   {0, 0, -0.5, 0, 2.5},
	"q:shell_only": {0, 0, -0.5, 0, 1.5},
	"q:permit":     {2, 0, -0.5, 0, 0},
}
