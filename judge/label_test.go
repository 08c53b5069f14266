package judge_test

import (
	"context"
	"errors"
	"github.com/ub-bench/ub/judge"
	"strings"
	"testing"

	"github.com/ub-bench/ub/ingest/lines"
	"github.com/ub-bench/ub/queries"
	"github.com/ub-bench/ub/sim/synth"
)

func TestLabelJSONLLabelsGoodLinesAndNamesBadOnes(t *testing.T) {
	b, err := judge.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	in := strings.Join([]string{
		`{"id": "a", "message": "why does the test fail?", "prev_agent": "I changed foo.go"}`,
		`{"id": "b"}`,
		``,
		`{"message": "no id"}`,
		`{"id": "c", "message": "no, that's wrong, revert it"}`,
		`not json`,
		`{"id": "d", "message": "rename foo to bar in main.go"}`,
	}, "\n")
	var got []judge.FileLabel
	var bad []string
	n, err := judge.LabelJSONL(strings.NewReader(in), "msgs.jsonl", b, func(l judge.FileLabel) error { got = append(got, l); return nil },
		judge.LabelFileOptions{BadLine: func(err error) {
			var pe *lines.ParseError
			if !errors.As(err, &pe) {
				t.Errorf("bad line error %v is not a ParseError", err)
			}
			bad = append(bad, err.Error())
		}})
	if err != nil {
		t.Fatal(err)
	}
	// Moves a careful reader gives these messages.
	want := []string{"a inquiry", "c critical", "d directive"}
	var have []string
	for _, l := range got {
		have = append(have, l.ID+" "+l.Label)
		if l.Judge != b.Version() || l.Conf <= 0 || l.Conf > 1 {
			t.Errorf("label %+v: want judge %s and a confidence in (0, 1]", l, b.Version())
		}
	}
	if strings.Join(have, ",") != strings.Join(want, ",") {
		t.Errorf("labels %v, want %v", have, want)
	}
	wantBad := []string{`msgs.jsonl:2: missing "message"`, `msgs.jsonl:4: missing "id" (each label is matched to its message by id)`,
		`msgs.jsonl:6: invalid JSON: invalid character 'o' in literal null (expecting 'u')`}
	if n != 3 || strings.Join(bad, "\n") != strings.Join(wantBad, "\n") {
		t.Errorf("%d bad lines:\n%s\nwant\n%s", n, strings.Join(bad, "\n"), strings.Join(wantBad, "\n"))
	}
	stop := errors.New("stop")
	if _, err := judge.LabelJSONL(strings.NewReader(in), "msgs.jsonl", b, func(judge.FileLabel) error { return stop }, judge.LabelFileOptions{}); !errors.Is(err, stop) {
		t.Errorf("emit's error: got %v", err)
	}
}

func TestLabelWorkspaceReplacesTheJudgesLabels(t *testing.T) {
	ctx := context.Background()
	ws, err := queries.Open(ctx, "", queries.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	st, err := synth.Write(ctx, ws, synth.Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := judge.NewBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	items, err := queries.PointMessages(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	want := map[judge.Move]int{}
	for _, it := range items {
		want[b.Label(it.Text, it.PrevAgent).Move]++
	}
	for range 2 { // twice: replaced, not added
		sum, err := judge.LabelWorkspace(ctx, ws, b, judge.LabelOptions{Judge: "mine", Target: "points"})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Kind != "point" || sum.Labels != st.Points || len(sum.Counts) != len(want) {
			t.Fatalf("summary %+v, want %d point labels", sum, st.Points)
		}
		for m, n := range want {
			if sum.Counts[m] != n {
				t.Errorf("%s: %d, want %d", m, sum.Counts[m], n)
			}
		}
	}
	js, err := queries.Judges(ctx, ws.Conn())
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range js {
		if j.Judge == "mine" && (j.Target != "point" || j.N != st.Points) {
			t.Errorf("stored %+v, want %d point labels", j, st.Points)
		}
	}
}
