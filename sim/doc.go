// Package sim builds what simulators see and runs them: prompt assembly from
// versioned templates, developer profiles, the built-in offline simulators,
// model backends (OpenAI-compatible endpoints, provider batch files) and the
// batch runner with its durable, content-addressed response cache.
package sim
