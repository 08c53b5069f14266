package runner

import "fmt"

// ExplainMiss says, part by part, why a request with key parts now would not
// be served by the cached answer of a request with key parts was: which of
// backend, endpoint, model, parameters, prompt template, sample index or
// messages (by position) changed. nil means the parts agree (so the keys
// agree too).
func ExplainMiss(was, now KeyParts) []string {
	var out []string
	diff := func(what, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s changed: %q -> %q", what, a, b))
		}
	}
	diff("backend", was.Backend, now.Backend)
	diff("base URL", was.BaseURL, now.BaseURL)
	diff("model", was.Model, now.Model)
	diff("parameters (temperature, max tokens, effort, extra)", was.Params, now.Params)
	diff("prompt template version", was.Template, now.Template)
	if was.Sample != now.Sample {
		out = append(out, fmt.Sprintf("sample index changed: %d -> %d", was.Sample, now.Sample))
	}
	if len(was.Messages) != len(now.Messages) {
		out = append(out, fmt.Sprintf("number of messages changed: %d -> %d", len(was.Messages), len(now.Messages)))
	}
	for i := 0; i < min(len(was.Messages), len(now.Messages)); i++ {
		if was.Messages[i] != now.Messages[i] {
			out = append(out, fmt.Sprintf("message %d changed (content hash %s -> %s)", i, was.Messages[i], now.Messages[i]))
		}
	}
	return out
}
