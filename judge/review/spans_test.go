package review

import (
	"context"
	"reflect"
	"testing"

	"github.com/ub-bench/ub/judge/review/reviewtest"
	"github.com/ub-bench/ub/queries"
)

// TestEpisodeSpans: an episode read within the spans BatchSpans found is
// the episode read whole; a span that misses rows (as after a table was
// rewritten) is noticed by its count and the table read whole; an episode
// with no probe finding reads none without a query.
func TestEpisodeSpans(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	eps := reviewtest.Three()
	if err := reviewtest.Insert(ctx, ws, eps); err != nil {
		t.Fatal(err)
	}
	var as []queries.ReviewAssignment
	for i, ep := range eps {
		as = append(as, queries.ReviewAssignment{Reviewer: "alice", Position: i + 1, SimulationID: ep.ID})
	}
	if err := queries.CreateReviewBatch(ctx, ws, queries.ReviewBatch{Batch: "b1", Seed: 1, N: len(eps), Reviewers: "alice"}, as); err != nil {
		t.Fatal(err)
	}
	spans, err := queries.BatchSpans(ctx, ws.Conn(), "b1")
	if err != nil {
		t.Fatal(err)
	}
	probed, calls := 0, 0
	for _, ep := range eps {
		whole, err := queries.ReviewEpisode(ctx, ws.Conn(), ep.ID)
		if err != nil {
			t.Fatal(err)
		}
		sp := spans[ep.ID]
		if sp.Messages.N != len(ep.Messages) || len(whole.Messages) != len(ep.Messages) {
			t.Errorf("%s: span of %d messages, %d read whole, %d written", ep.ID, sp.Messages.N, len(whole.Messages), len(ep.Messages))
		}
		if sp.Probes.N != len(whole.Probes) {
			t.Errorf("%s: span of %d probe findings, %d read whole", ep.ID, sp.Probes.N, len(whole.Probes))
		}
		if sp.Probes.N > 0 {
			probed++
		}
		if sp.ToolCalls.N > 0 {
			calls++
		}
		within, err := queries.ReviewEpisodeAt(ctx, ws.Conn(), ep.ID, &sp)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(within, whole) {
			t.Errorf("%s: read within its spans\n%+v\nread whole\n%+v", ep.ID, within, whole)
		}
		short := sp
		short.Messages.Hi = short.Messages.Lo // the first message only
		short.ToolCalls.Lo = short.ToolCalls.Hi
		again, err := queries.ReviewEpisodeAt(ctx, ws.Conn(), ep.ID, &short)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, whole) {
			t.Errorf("%s: read within spans that miss rows\n%+v\nread whole\n%+v", ep.ID, again, whole)
		}
	}
	if probed == 0 || probed == len(eps) || calls == 0 {
		t.Fatalf("%d of %d episodes with probe findings, %d with tool calls: the fixture does not test both cases", probed, len(eps), calls)
	}
}
