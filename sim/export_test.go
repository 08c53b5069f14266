package sim

// ToProfileMessages is toProfileMessages (profilestep.go), for sim_test.
var ToProfileMessages = toProfileMessages
