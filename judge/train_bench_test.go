package judge

import "testing"

// BenchmarkTrain trains the judge on the tune part of the labels corpus
// (490 messages) with DefaultParams: the cost of one cross-validation fold.
func BenchmarkTrain(b *testing.B) {
	exs, err := LoadCorpus(labelsDir(b))
	if err != nil {
		b.Fatal(err)
	}
	tune, _, _ := Split(exs, SplitSalt, HeldShare)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Train(tune, DefaultParams); err != nil {
			b.Fatal(err)
		}
	}
}
