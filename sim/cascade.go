package sim

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/ub-bench/ub/judge"
)

// CascadeItem is one message a cascade labels.
type CascadeItem struct {
	ID, Text, PrevAgent string
}

// CascadeModel is the model judge of a cascade.
type CascadeModel struct {
	Name    string // the judge's name, recorded as the decider of its labels
	BaseURL string // OpenAI-compatible endpoint
	Model   string // model name
}

// CascadeOptions configures Cascade.
type CascadeOptions struct {
	// Coverage is the share of items the built-in judge keeps, its most
	// confident ones (round(Coverage*n), as judge.RiskCoverage keeps); the
	// rest go to the model judge. 0 means 0.7.
	Coverage float64
	// Run configures the runner for the model judge's requests.
	Run RunOptions
}

// CascadeLabel is a cascade's label of one item.
type CascadeLabel struct {
	ID string
	// Move and Fine are the deciding judge's label; Move is 0 when the
	// model judge's request failed (the item is then unlabelled).
	Move judge.Move
	Fine judge.Fine
	// Unparseable is set when the model judge's answer could not be read:
	// the label is recorded as unparseable with Raw, never guessed.
	Unparseable bool
	// DecidedBy is judge.BuiltinName or the model judge's name.
	DecidedBy string
	// Confidence is the built-in judge's calibrated confidence in its own
	// label (kept also for items it handed on: it is why they were).
	Confidence float64
	// Raw is the built-in judge's reason or the model judge's answer.
	Raw string
	// RequestKey is the model judge's request key ("" for built-in labels).
	RequestKey string
	// Failed holds the model request's error when it failed.
	Failed string
}

// CascadeStats says who labelled how much.
type CascadeStats struct {
	Items, Builtin, Model, Failed, Unparseable int
	// Run is the runner's account of the model judge's requests.
	Run RunStats
}

// JudgeRequest is the model judge's request for one developer message: the
// versioned judge prompt (judge.PromptMessages) at temperature 0, at most 64
// tokens, exactly as `ub judge --model` sends it, so both share the cache.
func JudgeRequest(baseURL, model, text, prevAgent string) Request {
	zero := 0.0
	var msgs []Message
	for _, m := range judge.PromptMessages(text, prevAgent) {
		msgs = append(msgs, Message{Role: m.Role, Content: m.Content})
	}
	return Request{Backend: "openai", BaseURL: baseURL, Model: model,
		Params: Params{Temperature: &zero, MaxTokens: 64}, Messages: msgs}
}

// Cascade labels every item with the built-in judge b, keeps the share
// opts.Coverage it is most confident of, and sends the rest to the model
// judge through the runner (backend, store: cache, retries, rate limit,
// cost), so a second run sends nothing. Ties in confidence are broken by
// item order. Labels are returned in item order.
func Cascade(ctx context.Context, items []CascadeItem, b *judge.Builtin, m CascadeModel, backend Backend, store Store, opts CascadeOptions) ([]CascadeLabel, CascadeStats, error) {
	cov := opts.Coverage
	if cov == 0 {
		cov = 0.7
	}
	if cov < 0 || cov > 1 || math.IsNaN(cov) {
		return nil, CascadeStats{}, fmt.Errorf("cascade: coverage %v outside [0, 1]", cov)
	}
	st := CascadeStats{Items: len(items)}
	out := make([]CascadeLabel, len(items))
	order := make([]int, len(items))
	for i, it := range items {
		r := b.Label(it.Text, it.PrevAgent)
		out[i] = CascadeLabel{ID: it.ID, Move: r.Move, Fine: r.Fine, DecidedBy: judge.BuiltinName, Confidence: r.Confidence, Raw: r.Reason}
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return out[order[x]].Confidence > out[order[y]].Confidence })
	keep := int(math.Round(cov * float64(len(items))))
	send := order[keep:]
	sort.Ints(send)
	st.Builtin = keep
	if len(send) == 0 {
		return out, st, nil
	}
	reqs := make([]Request, len(send))
	for j, i := range send {
		reqs[j] = JudgeRequest(m.BaseURL, m.Model, items[i].Text, items[i].PrevAgent)
	}
	rs, err := Run(ctx, reqs, backend, store, opts.Run)
	st.Run = rs
	if err != nil {
		return nil, st, fmt.Errorf("cascade: %w", err)
	}
	keys := Keys(reqs)
	answers, err := store.Get(ctx, keys)
	if err != nil {
		return nil, st, fmt.Errorf("cascade: %w", err)
	}
	for j, i := range send {
		l := &out[i]
		l.DecidedBy, l.RequestKey, l.Fine = m.Name, keys[j], 0
		a, ok := answers[keys[j]]
		switch {
		case !ok:
			l.Move, l.Failed, l.Raw = 0, "no answer stored", ""
			st.Failed++
			continue
		case a.Err != "":
			l.Move, l.Failed, l.Raw = 0, a.Err, ""
			st.Failed++
			continue
		}
		st.Model++
		l.Raw = a.Text
		mv, fine, perr := judge.ParseAnswer(a.Text)
		if perr != nil {
			l.Move, l.Unparseable = 0, true
			st.Unparseable++
			continue
		}
		l.Move, l.Fine = mv, fine
	}
	return out, st, nil
}
