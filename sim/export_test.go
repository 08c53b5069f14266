package sim

// EchoBackend is echo (step_test.go) for the external tests of package
// sim_test, which cannot import the package's own test helpers otherwise.
var EchoBackend = echo

// ToProfileMessages is toProfileMessages (profilestep.go), for sim_test.
var ToProfileMessages = toProfileMessages
