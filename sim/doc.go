// Package sim builds what simulators see and runs them: prompt assembly from
// versioned templates, developer profiles and the built-in offline
// simulators. Every model call goes through the runner (sim/runner).
//
// The pipeline's simulator steps over a workspace live here, each an
// Options struct and one call: Generate (every missing generation of an
// experiment), StoreStatsProfiles and Distil (personas). Inputs reads what a
// simulator is shown at a frozen point.
package sim
