package metrics

import (
	"math"
	"slices"
	"testing"
)

func sameFloat(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b))
}

func TestPercentile(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"empty", nil, 50, nan},
		{"only NaN", []float64{nan}, 50, nan},
		{"one value p0", []float64{7}, 0, 7},
		{"one value p50", []float64{7}, 50, 7},
		{"one value p100", []float64{7}, 100, 7},
		{"min", []float64{3, 1, 2}, 0, 1},
		{"max", []float64{3, 1, 2}, 100, 3},
		{"odd median", []float64{3, 1, 2}, 50, 2},
		{"even median", []float64{4, 1, 3, 2}, 50, 2.5},
		// h = 0.9 * 3 = 2.7 -> 3 + 0.7*(4-3)
		{"p90 interpolated", []float64{1, 2, 3, 4}, 90, 3.7},
		// h = 0.25 * 4 = 1 -> exactly the second value
		{"p25 exact rank", []float64{10, 20, 30, 40, 50}, 25, 20},
		// NumPy: np.percentile([15, 20, 35, 40, 50], 40) == 29.0
		{"numpy example", []float64{15, 20, 35, 40, 50}, 40, 29},
		{"NaN ignored", []float64{nan, 1, 3, nan}, 50, 2},
		{"p below range", []float64{1, 2}, -1, nan},
		{"p above range", []float64{1, 2}, 100.5, nan},
		{"p NaN", []float64{1, 2}, nan, nan},
		{"duplicates", []float64{5, 5, 5, 1}, 50, 5},
		{"infinity", []float64{1, math.Inf(1)}, 100, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := slices.Clone(tt.xs)
			got := Percentile(in, tt.p)
			if !sameFloat(got, tt.want) {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.xs, tt.p, got, tt.want)
			}
			if !slices.EqualFunc(in, tt.xs, sameFloat) {
				t.Errorf("Percentile modified its input: %v, was %v", in, tt.xs)
			}
		})
	}
}

func TestMedian(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, math.NaN()},
		{[]float64{9, 1, 5}, 5},
		{[]float64{9, 1, 5, 3}, 4},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.xs)
		if got := Median(in); !sameFloat(got, tt.want) {
			t.Errorf("Median(%v) = %v, want %v", tt.xs, got, tt.want)
		}
		if !slices.Equal(in, tt.xs) {
			t.Errorf("Median modified its input: %v, was %v", in, tt.xs)
		}
	}
}

func TestMean(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{nil, math.NaN()},
		{[]float64{math.NaN()}, math.NaN()},
		{[]float64{2}, 2},
		{[]float64{1, 2, 3, 4}, 2.5},
		{[]float64{1, math.NaN(), 3}, 2},
	}
	for _, tt := range tests {
		if got := Mean(tt.xs); !sameFloat(got, tt.want) {
			t.Errorf("Mean(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
}
