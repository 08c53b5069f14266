package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestMakeTestSetsUp: the README's test command sets up what the tests
// need on a fresh Debian machine. make test runs scripts/test-deps.sh
// before any test; the script installs chromium, strace and util-linux
// with apt-get when they are missing and it runs as root, and otherwise
// names what is missing and how to install it, and fails. Each case runs
// the script with a PATH of fakes (id, apt-get, the programs present).
func TestMakeTestSetsUp(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	recipe := regexp.MustCompile(`(?m)^test:.*\n((?:\t.*\n)+)`).FindSubmatch(mk)
	if recipe == nil {
		t.Fatal("Makefile has no test target")
	}
	lines := strings.Split(strings.TrimSpace(string(recipe[1])), "\n")
	if !strings.Contains(lines[0], "scripts/test-deps.sh") {
		t.Errorf("make test begins with %q, not with scripts/test-deps.sh", strings.TrimSpace(lines[0]))
	}

	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	script, _ := filepath.Abs("../../scripts/test-deps.sh")
	for _, tc := range []struct {
		name     string
		uid      string
		present  []string // programs on PATH besides id
		aptGet   bool
		wantCode int
		wantApt  string // apt-get's calls, one per line
		wantErr  string
	}{
		{name: "root installs what is missing", uid: "0", aptGet: true,
			wantApt: "update -qq\ninstall -y -qq chromium strace util-linux\n", wantErr: "installing chromium strace util-linux"},
		{name: "root installs only what is missing", uid: "0", aptGet: true, present: []string{"chromium", "unshare"},
			wantApt: "update -qq\ninstall -y -qq strace\n"},
		{name: "everything present", uid: "1000", aptGet: true, present: []string{"chromium", "strace", "unshare"}},
		{name: "not root", uid: "1000", aptGet: true, present: []string{"unshare"}, wantCode: 1,
			wantErr: "make test needs chromium strace, not found on PATH: install with\n  sudo apt-get install -y chromium strace\n"},
		{name: "no apt-get", uid: "0", wantCode: 1, present: []string{"chromium", "unshare"},
			wantErr: "sudo apt-get install -y strace"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := t.TempDir()
			log := filepath.Join(t.TempDir(), "apt-get.log")
			fake := func(name, body string) {
				if err := os.WriteFile(filepath.Join(bin, name), []byte("#!"+bash+"\n"+body+"\n"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			fake("id", "echo "+tc.uid)
			if tc.aptGet {
				fake("apt-get", `echo "$@" >> `+log)
			}
			for _, p := range tc.present {
				fake(p, "exit 0")
			}
			cmd := exec.Command(bash, script)
			cmd.Env = []string{"PATH=" + bin}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			apt, _ := os.ReadFile(log)
			if code != tc.wantCode || string(apt) != tc.wantApt || !strings.Contains(stderr.String(), tc.wantErr) {
				t.Errorf("exit %d, apt-get %q, stderr %q; want exit %d, apt-get %q, stderr with %q",
					code, apt, stderr.String(), tc.wantCode, tc.wantApt, tc.wantErr)
			}
		})
	}
}
