package metrics

import (
	"math"
	"slices"
)

// Mean returns the arithmetic mean of xs, ignoring NaN values. It returns NaN
// when xs holds no number.
func Mean(xs []float64) float64 {
	var sum float64
	var n int
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		sum += x
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Median returns the 50th percentile of xs, as Percentile computes it: the
// middle value, or the mean of the two middle values for an even count.
func Median(xs []float64) float64 {
	return Percentile(xs, 50)
}

// Percentile returns the p-th percentile of xs, for p in [0, 100], ignoring
// NaN values. It works on a sorted copy; xs is not modified.
//
// The method is linear interpolation between closest ranks, the default of
// NumPy's percentile and of R's quantile (type 7): with the n values sorted
// as v[0] <= ... <= v[n-1], the rank is h = p/100 * (n-1), and the result is
// v[floor(h)] + (h - floor(h)) * (v[floor(h)+1] - v[floor(h)]). So p = 0 is
// the minimum, p = 100 the maximum, and one value is every percentile of
// itself.
//
// It returns NaN when xs holds no number or p is outside [0, 100] or NaN.
func Percentile(xs []float64, p float64) float64 {
	if !(p >= 0 && p <= 100) {
		return math.NaN()
	}
	v := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	slices.Sort(v)
	h := p / 100 * float64(len(v)-1)
	lo := int(math.Floor(h))
	if lo >= len(v)-1 {
		return v[len(v)-1]
	}
	frac := h - float64(lo)
	if frac == 0 {
		return v[lo]
	}
	return v[lo] + frac*(v[lo+1]-v[lo])
}
