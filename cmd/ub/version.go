package main

import (
	"fmt"
	"runtime/debug"
)

// version and commit are set at build time:
//
//	go build -ldflags "-X main.version=v0.3.0 -X main.commit=$(git rev-parse HEAD)" ./cmd/ub
//
// Left empty, buildVersion falls back on the module's build information
// (the module version, vcs.revision and vcs.modified that go build records
// when it builds inside a git checkout).
var version, commit string

// buildInfo is where buildVersion reads the fallback; tests replace it.
var buildInfo = debug.ReadBuildInfo

// buildVersion returns the version and commit of this ub: the ones set at
// build time, else the module's; "devel" and "unknown" when neither says.
// A commit built from a checkout with uncommitted changes ends in
// "-modified".
func buildVersion() (ver, rev string) {
	ver, rev = version, commit
	if bi, ok := buildInfo(); ok {
		if ver == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			ver = bi.Main.Version
		}
		if rev == "" {
			var modified bool
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					rev = s.Value
				case "vcs.modified":
					modified = s.Value == "true"
				}
			}
			if rev != "" && modified {
				rev += "-modified"
			}
		}
	}
	if ver == "" {
		ver = "devel"
	}
	if rev == "" {
		rev = "unknown"
	}
	return ver, rev
}

// versionLine is what ub --version prints.
func versionLine() string {
	ver, rev := buildVersion()
	return fmt.Sprintf("ub %s (commit %s)", ver, rev)
}
