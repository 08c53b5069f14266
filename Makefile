# ub: the README's two commands are `make demo` and `make test`.
GO ?= go

.PHONY: build test bench demo fuzz

build:
	$(GO) build -o ub ./cmd/ub

# The full test suite, as CI runs it (.ci/run). Needs ../shared/corpus beside
# the repository (or UB_CORPUS).
test:
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

demo: build
	./ub demo

FUZZTIME ?= 30s
fuzz:
	for f in FuzzParseAider FuzzParseClaudeCode FuzzParseClaudeExport FuzzParseCodex FuzzParseSpecStory FuzzParseJSONL; do \
		$(GO) test ./ingest -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; done
