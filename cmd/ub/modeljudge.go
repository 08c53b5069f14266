package main

// modelJudge is a model endpoint named by the flags of ub grade and ub
// rubrics write. They still run their requests with sim.Run directly; the
// shared sim.RunStep (endpoint.go) serves generate, judge and profile.
type modelJudge struct {
	model, baseURL, apiKeyEnv string
	concurrency               int
	rateLimit                 float64
	priceIn, priceOut         float64
	retryFailed               bool
}
