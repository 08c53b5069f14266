# ub: the README's two commands are `make demo` and `make test`.
GO ?= go

.PHONY: build test bench bench-scale demo fuzz

# The version and commit ub --version prints and manifest.json records.
VERSION ?= $(shell git describe --tags --always 2>/dev/null || echo devel)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)$(shell git diff --quiet HEAD 2>/dev/null || echo -modified)
LDFLAGS := -X main.version=$(VERSION) -X main.commit=$(COMMIT)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o ub ./cmd/ub

# The full test suite, as CI runs it (.ci/run). Needs ../shared/corpus beside
# the repository (or UB_CORPUS). scripts/test-deps.sh first installs what
# the tests need beyond Go (chromium, strace) when run as root on Debian,
# or names what is missing.
test:
	scripts/test-deps.sh
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 60m ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Time and peak RSS of synth, verdict export and import, probes and report
# at 1x, 10x, 100x of the seed's 2,625 episodes and at one million, each
# checked against its bound (peak RSS at most the memory limit + 256 MiB,
# time exponent at most 1.05 from 10x up); fails naming each step over it
# (docs/performance.md). Not part of test. SCALES=1 10 runs only those;
# MEMORY_LIMIT=128MiB runs every step at that --memory-limit (default 512MiB).
SCALES ?= 1 10 100 381
bench-scale: build
	GO=$(GO) UB=./ub scripts/bench-scale.sh $(SCALES)

demo: build
	./ub demo

# Every fuzz target of the tree, found by its declaration (so a new one is
# never left out), each for FUZZTIME, package by package.
FUZZTIME ?= 30s
fuzz:
	grep -r --include='*_test.go' -o '^func Fuzz[A-Za-z0-9_]*' . | sed 's|/[^/]*_test.go:func | |' | sort | \
	while read dir f; do \
		echo "$$dir $$f"; $(GO) test $$dir -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) || exit 1; done
