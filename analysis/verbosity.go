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

// Verbosity returns the pooled mean and median length of lengths and the
// macro mean over developers with its 95% t interval (SPEC section 5,
// "verbosity: words per generation by simulator and condition, against the
// real developers' messages"). Sums are of integers, so the result does
// not depend on the order of lengths.
func Verbosity(lengths []Length) VerbosityStat {
	v := VerbosityStat{Messages: len(lengths), Mean: math.NaN(), Median: math.NaN()}
	if len(lengths) == 0 {
		v.Macro = MeanCI(nil, Confidence)
		return v
	}
	words := make([]int, len(lengths))
	sum := map[string]int{}
	n := map[string]int{}
	var total int
	for i, l := range lengths {
		words[i] = l.Words
		total += l.Words
		sum[l.Developer] += l.Words
		n[l.Developer]++
	}
	v.Mean = float64(total) / float64(len(lengths))
	sort.Ints(words)
	mid := len(words) / 2
	if len(words)%2 == 1 {
		v.Median = float64(words[mid])
	} else {
		v.Median = float64(words[mid-1]+words[mid]) / 2
	}
	devs := sortedKeys(n)
	means := make([]float64, len(devs))
	for i, d := range devs {
		means[i] = float64(sum[d]) / float64(n[d])
	}
	v.Macro = MeanCI(means, Confidence)
	return v
}
