package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/ub-bench/ub/reports"
)

// TestBuildVersion: the version and commit set at build time win; else
// the module's build information gives them, a checkout with uncommitted
// changes marked; else "devel" and "unknown".
func TestBuildVersion(t *testing.T) {
	saved, savedV, savedC := buildInfo, version, commit
	defer func() { buildInfo, version, commit = saved, savedV, savedC }()
	info := func(ver string, settings ...debug.BuildSetting) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: ver}, Settings: settings}, true
		}
	}
	rev := debug.BuildSetting{Key: "vcs.revision", Value: "0123abc"}
	for _, tc := range []struct {
		name             string
		ldVer, ldCommit  string
		info             func() (*debug.BuildInfo, bool)
		wantVer, wantRev string
	}{
		{"ldflags win", "v1.0.0", "feed", info("v0.9.0", rev), "v1.0.0", "feed"},
		{"build info", "", "", info("v0.9.0", rev, debug.BuildSetting{Key: "vcs.modified", Value: "false"}), "v0.9.0", "0123abc"},
		{"modified checkout", "", "", info("(devel)", rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"}), "devel", "0123abc-modified"},
		{"nothing known", "", "", func() (*debug.BuildInfo, bool) { return nil, false }, "devel", "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			version, commit, buildInfo = tc.ldVer, tc.ldCommit, tc.info
			if v, r := buildVersion(); v != tc.wantVer || r != tc.wantRev {
				t.Errorf("buildVersion() = %q, %q; want %q, %q", v, r, tc.wantVer, tc.wantRev)
			}
		})
	}
	version, commit = "v2.0.0", "beef"
	var out, errb bytes.Buffer
	if code := run([]string{"ub", "--version"}, &streams{out: &out, err: &errb}); code != 0 || out.String() != "ub v2.0.0 (commit beef)\n" {
		t.Errorf("ub --version: exit %d, %q (stderr %q)", code, out.String(), errb.String())
	}
}

// TestReportListAligned: every title of ub report --list starts in the
// same column, names longer than 16 characters included.
func TestReportListAligned(t *testing.T) {
	out := figureList(reports.Figures())
	col := -1
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		name, _, _ := strings.Cut(line, " ")
		rest := strings.TrimLeft(line[len(name):], " ")
		c := len(line) - len(rest)
		if col == -1 {
			col = c
		}
		if c != col || c < len(name)+2 {
			t.Errorf("title of %s starts at column %d, want %d: %q", name, c, col, line)
		}
	}
}
