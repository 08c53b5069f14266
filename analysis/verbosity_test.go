package analysis

import (
	"math"
	"testing"
)

func TestVerbosity(t *testing.T) {
	// Hand computation: developer a writes 2, 4 and 9 words (mean 5), b
	// writes 1 (mean 1). Pooled mean 16/4 = 4; sorted 1 2 4 9, median
	// (2 + 4) / 2 = 3. Macro mean (5 + 1) / 2 = 3, sd sqrt(8) = 2.8284,
	// half width t(0.975, 1) * 2.8284 / sqrt(2) = 12.7062 * 2 = 25.4124.
	v := Verbosity([]Length{{"a", 2}, {"b", 1}, {"a", 9}, {"a", 4}})
	checkFloat(t, "Mean", v.Mean, 4, 1e-12)
	checkFloat(t, "Median", v.Median, 3, 1e-12)
	checkFloat(t, "Macro.Mean", v.Macro.Mean, 3, 1e-12)
	checkFloat(t, "Macro.Lo", v.Macro.Lo, 3-25.4124, 1e-3)
	checkFloat(t, "Macro.Hi", v.Macro.Hi, 3+25.4124, 1e-3)
	if v.Messages != 4 {
		t.Errorf("Messages = %d", v.Messages)
	}
	t.Run("odd count takes the middle", func(t *testing.T) {
		checkFloat(t, "Median", Verbosity([]Length{{"a", 7}, {"a", 1}, {"a", 3}}).Median, 3, 0)
	})
	t.Run("nothing gives NaN", func(t *testing.T) {
		v := Verbosity([]Length(nil))
		if !math.IsNaN(v.Mean) || !math.IsNaN(v.Median) || !math.IsNaN(v.Macro.Mean) {
			t.Errorf("Verbosity(nil) = %+v", v)
		}
	})
}
