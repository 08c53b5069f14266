package ingest

import "github.com/ub-bench/ub/analysis/probes"

// testProber is the prober ub ingest gives Run: the tests of the episodes'
// ingest check the probes' results stored with them.
func testProber() Prober { return probes.NewProber() }
