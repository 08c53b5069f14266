package rubric

import (
	"context"
	"strings"

	"github.com/ub-bench/ub/queries"
)

// LoadQuoteSources returns the texts every rubric quote is checked against: the
// task sources of the workspace (queries.TaskSources).
func LoadQuoteSources(ctx context.Context, db queries.Querier) (QuoteSourceFunc, error) {
	texts, err := queries.TaskSources(ctx, db)
	if err != nil {
		return nil, err
	}
	type key struct{ domain, task, source string }
	bySource := map[key][]string{}
	for _, t := range texts {
		k := key{t.Domain, t.TaskID, t.Source}
		bySource[k] = append(bySource[k], t.Text)
	}
	return func(domain, task, source string) ([]string, bool) {
		if _, ok := bySource[key{domain, task, ""}]; !ok {
			return nil, false
		}
		return bySource[key{domain, task, source}], true
	}, nil
}

// LoadGradeItems returns every (episode, criterion) of domain ("" means
// every domain) to grade, with the episode's transcript, in the order of
// queries.GradeItems.
func LoadGradeItems(ctx context.Context, db queries.Querier, domain string) ([]queries.GradeItem, []GradeItem, error) {
	items, err := queries.GradeItems(ctx, db, domain)
	if err != nil || len(items) == 0 {
		return nil, nil, err
	}
	msgs, err := queries.Transcripts(ctx, db, domain)
	if err != nil {
		return nil, nil, err
	}
	transcripts := map[string][]TranscriptLine{}
	for _, m := range msgs {
		l := TranscriptLine{TurnIdx: m.TurnIdx, Role: m.Role, Text: m.Content}
		if m.Calls != "" {
			l.Calls = []string{m.Calls}
		}
		transcripts[m.SimulationID] = append(transcripts[m.SimulationID], l)
	}
	out := make([]GradeItem, len(items))
	for i, it := range items {
		out[i] = GradeItem{
			Blueprint: Blueprint{ReasonForCall: it.ReasonForCall, KnownInfo: it.KnownInfo, UnknownInfo: it.UnknownInfo,
				TaskInstructions: it.TaskInstructions, Persona: it.Persona, Instruction: it.Instruction},
			Criterion: Criterion{CriterionID: it.CriterionID, Family: it.Family, Mode: it.Mode, Quote: it.Quote,
				QuoteSource: it.QuoteSource, Text: it.Text, AppliesWhen: it.AppliesWhen},
			Transcript: transcripts[it.SimulationID],
		}
	}
	return items, out, nil
}

// LoadWriterInputs returns what the rubric writer sees of every task of
// domain ("" means every domain), in the order of queries.WriteTasks; with
// sample, each task's sample episode (when it has one).
func LoadWriterInputs(ctx context.Context, db queries.Querier, domain string, sample bool) ([]WriterInput, error) {
	tasks, err := queries.WriteTasks(ctx, db, domain)
	if err != nil {
		return nil, err
	}
	inputs := make([]WriterInput, len(tasks))
	for i, t := range tasks {
		in := WriterInput{Domain: t.Domain, TaskID: t.TaskID, Guidelines: t.Guidelines,
			Blueprint: Blueprint{ReasonForCall: t.ReasonForCall, KnownInfo: t.KnownInfo, UnknownInfo: t.UnknownInfo,
				TaskInstructions: t.TaskInstructions, Persona: t.Persona, Instruction: t.Instruction}}
		if t.UserTools != "" {
			in.UserTools = strings.Split(t.UserTools, ",")
		}
		if sample && t.SampleID != "" {
			ms, err := queries.EpisodeMessages(ctx, db, t.SampleID)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				in.Sample = append(in.Sample, TranscriptLine{TurnIdx: m.TurnIdx, Role: m.Role, Text: m.Content})
			}
		}
		inputs[i] = in
	}
	return inputs, nil
}
