package analysis

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The tau2-bench releases a result file's info.git_commit maps to: no
// result file records a version, only the commit it was run from.
//
// Source: github.com/sierra-research/tau2-bench, read at commit a2c0247.
// Tags and their commits: `git rev-list -n1 TAG`; a commit between
// releases: `git describe --tags --abbrev=0 --match 'v*' COMMIT` (its
// label is that release followed by "+": after it, before the next).
// The grading change: CHANGELOG.md, [1.0.1] - 2026-07-15: "banking_knowledge
// scores are not comparable across this release".

// tau2Release is a release tag and the commit it names.
type tau2Release struct {
	Tag, Commit, Date string
}

// tau2Releases are in order of release.
var tau2Releases = []tau2Release{
	{"v0.1.0", "37199f36924c8896f5e048360691f8476cd89ba1", "2025-06-10"},
	{"v0.1.1", "2692867959fd4abe6275f0a628fcea91627d4091", "2025-06-12"},
	{"v0.1.2", "40f46d3540dc95aca145ddecb0464fdd9a1e8c15", "2025-07-17"},
	{"v0.1.3", "5ba9e3e56db57c5e4114bf7f901291f09b2c5619", "2025-08-26"},
	{"v0.2.0", "f8de30c298689cbe0117d76a378e7315a17e5bd8", "2025-10-06"},
	{"v1.0.0", "17e07b1da2bbc0cadfddeea36412686e0604127b", "2026-03-18"},
	{"v1.0.1", "fc0055dc4e0a316c3f83133267fbd6faaa770992", "2026-07-16"},
}

// tau2Between are commits known to lie after a release and before the
// next (git describe, as above): those public result files were run from.
var tau2Between = map[string]string{
	"8d005b0e5b9e4af0bc055886fa7f95fc86d1710e": "v0.2.0",
	"b02b509367e8436f956c334741ac7cf7c9f5dabe": "v0.1.2",
	"b5580ae434f166c91e4322ddc20c22bc1518de77": "v0.2.0",
	"bfb3ede58adb4d464859a5c6616f80852976e8f0": "v0.2.0",
	"c5b2d228d850c59b749b93cf32c4745d3aa53967": "v0.2.0",
	"fab54348b2eed821c82a8dd6b7316f9e9a0e36cc": "v0.2.0",
}

// tau2GradingChange is the first release whose banking_knowledge scores
// are not comparable with those before it.
const tau2GradingChange = "v1.0.1"

// Tau2Release returns the release a commit (full or abbreviated, at least
// 7 hex digits) belongs to: its tag, or "TAG+" for a commit after TAG and
// before the next release; rank orders releases (a "+" after its tag).
// ok is false for a commit the table does not know.
func Tau2Release(commit string) (label string, rank int, ok bool) {
	c := strings.ToLower(strings.TrimSpace(commit))
	if len(c) < 7 {
		return "", 0, false
	}
	for i, r := range tau2Releases {
		if strings.HasPrefix(r.Commit, c) {
			return r.Tag, 2 * i, true
		}
	}
	for full, tag := range tau2Between {
		if strings.HasPrefix(full, c) {
			for i, r := range tau2Releases {
				if r.Tag == tag {
					return tag + "+", 2*i + 1, true
				}
			}
		}
	}
	return "", 0, false
}

// Tau2Run is a result file's commit and domain.
type Tau2Run struct {
	Commit, Domain string
}

// Tau2ReleaseWarnings says when runs of a domain whose grading tau2
// changed (banking_knowledge, at 1.0.1) come from releases on both sides
// of the change, or from commits the table does not know beside known
// ones: their scores are not comparable.
func Tau2ReleaseWarnings(runs []Tau2Run) []string {
	_, change, _ := Tau2Release(tau2ReleaseCommit(tau2GradingChange))
	before, after, unknown := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		if r.Domain != "banking_knowledge" {
			continue
		}
		label, rank, ok := Tau2Release(r.Commit)
		switch {
		case !ok:
			unknown[r.Commit] = true
		case rank < change:
			before[label] = true
		default:
			after[label] = true
		}
	}
	var out []string
	if len(before) > 0 && len(after) > 0 {
		out = append(out, fmt.Sprintf("banking_knowledge runs mix tau2-bench releases before %s (%s) and from it on (%s): tau2 changed that domain's grading in %s, and declares its scores not comparable across it",
			tau2GradingChange, strings.Join(slices.Sorted(maps.Keys(before)), ", "), strings.Join(slices.Sorted(maps.Keys(after)), ", "), tau2GradingChange))
	} else if len(unknown) > 0 && len(before)+len(after) > 0 {
		out = append(out, fmt.Sprintf("banking_knowledge runs from %d commit(s) of no known release beside runs of %s: whether they are graded alike (tau2 changed that domain's grading in %s) cannot be told",
			len(unknown), strings.Join(append(slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after))...), ", "), tau2GradingChange))
	}
	return out
}

func tau2ReleaseCommit(tag string) string {
	for _, r := range tau2Releases {
		if r.Tag == tag {
			return r.Commit
		}
	}
	return ""
}
