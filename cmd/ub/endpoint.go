package main

import (
	"github.com/urfave/cli/v2"

	"github.com/ub-bench/ub/sim/runner"
)

// modelEndpoint is a model endpoint named by flags (the model judge, the
// distilling model of ub profile): one set of flags, so that every model
// path has the same limits, prices and retries.
type modelEndpoint struct {
	model       string
	endpoint    runner.Endpoint
	retryFailed bool
}

// endpointFlags are the flags of a model endpoint other than --model; what
// names its use in the help ("model judge").
func endpointFlags(what string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "base-url", Usage: "OpenAI-compatible endpoint of the " + what},
		&cli.StringFlag{Name: "api-key-env", Usage: "the NAME of the variable holding the " + what + "'s API key"},
		&cli.IntFlag{Name: "concurrency", Value: 4, Usage: what + ": requests in flight"},
		&cli.Float64Flag{Name: "rate-limit", Usage: what + ": requests per second (0: unlimited)"},
		&cli.Float64Flag{Name: "price-in", Usage: what + ": USD per million input tokens"},
		&cli.Float64Flag{Name: "price-out", Usage: what + ": USD per million output tokens"},
		&cli.IntFlag{Name: "max-attempts", Usage: what + ": calls per request before it is recorded as failed (0: 6)"},
		&cli.DurationFlag{Name: "timeout", Usage: what + ": per request (0: 120s)"},
		&cli.BoolFlag{Name: "retry-failed", Usage: what + ": send again requests that failed after all retries"},
	}
}

// endpointFromFlags reads the flags of endpointFlags and --model.
func endpointFromFlags(c *cli.Context) modelEndpoint {
	return modelEndpoint{model: c.String("model"), retryFailed: c.Bool("retry-failed"), endpoint: runner.Endpoint{
		Backend: "openai", BaseURL: c.String("base-url"), APIKeyEnv: c.String("api-key-env"), Timeout: c.Duration("timeout"),
		Concurrency: c.Int("concurrency"), RateLimit: c.Float64("rate-limit"), MaxAttempts: c.Int("max-attempts"),
		PriceIn: c.Float64("price-in"), PriceOut: c.Float64("price-out")}}
}
