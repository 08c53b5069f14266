// Package sim builds what simulators see and runs them: prompt assembly from
// versioned templates, developer profiles, the built-in offline simulators,
// model backends (OpenAI-compatible endpoints, provider batch files) and the
// batch runner with its durable, content-addressed response cache.
//
// The pipeline's model steps over a workspace live here too, each an
// Options struct and one call: Generate (every missing generation of an
// experiment), StoreStatsProfiles and Distil (personas), JudgeWithModel and
// JudgeCascade (model labels; one request builder, JudgeRequest). Inputs
// reads what a simulator is shown at a frozen point.
package sim
