package analysis

import (
	"math"
	"sort"
)

// Length is the length in words of one message of one developer's moment,
// as queries.Words counts them (the study loader counts at load time).
type Length struct {
	Developer string
	Words     int
}

// Lengths is Count messages of one developer that are Words words long:
// lengths counted, as [Outcomes] counts outcomes.
type Lengths struct {
	Length
	Count int // messages; 0 or less counts none
}

// Message is what [Verbosity] takes: one Length, or counted Lengths.
type Message interface {
	Length | Lengths
	messages() (Length, int)
}

func (l Length) messages() (Length, int)  { return l, 1 }
func (l Lengths) messages() (Length, int) { return l.Length, max(l.Count, 0) }

// VerbosityStat summarises message lengths, in words per message.
type VerbosityStat struct {
	Messages int
	// Mean is the pooled mean, sum(words) / Messages: the seed's "words per
	// message". NaN for no messages.
	Mean float64
	// Median is the pooled median: the middle length, or the mean of the
	// two middle lengths for an even count. NaN for no messages.
	Median float64
	// Macro is the mean over developers of each developer's mean length,
	// with its 95% t interval ([MeanCI]), so that a chatty developer's
	// moments do not outweigh a quiet one's, as for accuracy.
	Macro Interval
}

// LengthCount is Messages messages that are Words words long: a bar of the
// pooled distribution of lengths that [VerbosityCounted] reads.
type LengthCount struct {
	Words, Messages int
}

// DeveloperWords is Messages messages of one developer, Words words in all:
// what [VerbosityCounted] reads for the macro mean.
type DeveloperWords struct {
	Developer       string
	Messages, Words int
}

// Verbosity returns the pooled mean and median length of lengths and the
// macro mean over developers with its 95% t interval (SPEC section 5,
// "verbosity: words per generation by simulator and condition, against the
// real developers' messages"). Sums are of integers, so the result does
// not depend on the order of lengths, and counted [Lengths] give the
// numbers of as many single Length values.
func Verbosity[M Message](lengths []M) VerbosityStat {
	counts := make([]LengthCount, 0, len(lengths))
	devs := map[string]*DeveloperWords{}
	for _, x := range lengths {
		l, c := x.messages()
		if c == 0 {
			continue
		}
		counts = append(counts, LengthCount{l.Words, c})
		d := devs[l.Developer]
		if d == nil {
			d = &DeveloperWords{Developer: l.Developer}
			devs[l.Developer] = d
		}
		d.Messages += c
		d.Words += l.Words * c
	}
	perDev := make([]DeveloperWords, 0, len(devs))
	for _, d := range devs {
		perDev = append(perDev, *d)
	}
	return VerbosityCounted(counts, perDev)
}

// VerbosityCounted is [Verbosity] of messages given counted twice: by
// length (lengths: the pooled mean and median) and by developer
// (developers: the macro mean). Both must count the same messages; rows
// with equal keys add up, and their order does not matter.
func VerbosityCounted(lengths []LengthCount, developers []DeveloperWords) VerbosityStat {
	v := VerbosityStat{Mean: math.NaN(), Median: math.NaN()}
	// The distinct lengths with their counts, for the median.
	type run struct{ words, n int }
	runs := make([]run, 0, len(lengths))
	var total int
	for _, l := range lengths {
		if l.Messages <= 0 {
			continue
		}
		runs = append(runs, run{l.Words, l.Messages})
		v.Messages += l.Messages
		total += l.Words * l.Messages
	}
	sum := map[string]int{}
	n := map[string]int{}
	for _, d := range developers {
		if d.Messages <= 0 {
			continue
		}
		sum[d.Developer] += d.Words
		n[d.Developer] += d.Messages
	}
	if v.Messages == 0 {
		v.Macro = MeanCI(nil, Confidence)
		return v
	}
	v.Mean = float64(total) / float64(v.Messages)
	sort.Slice(runs, func(i, j int) bool { return runs[i].words < runs[j].words })
	// nth returns the i-th smallest length (from 0).
	nth := func(i int) int {
		for _, r := range runs[:len(runs)-1] {
			if i < r.n {
				return r.words
			}
			i -= r.n
		}
		return runs[len(runs)-1].words
	}
	mid := v.Messages / 2
	if v.Messages%2 == 1 {
		v.Median = float64(nth(mid))
	} else {
		v.Median = float64(nth(mid-1)+nth(mid)) / 2
	}
	devs := sortedKeys(n)
	means := make([]float64, len(devs))
	for i, d := range devs {
		means[i] = float64(sum[d]) / float64(n[d])
	}
	v.Macro = MeanCI(means, Confidence)
	return v
}
