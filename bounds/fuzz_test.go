package bounds

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/check"
)

// fuzzMaxN keeps each call of FuzzBounds fast: Lower sums a window of
// about 15 sqrt(n) terms, 0.1 ms at n = 10^4.
const fuzzMaxN = 1 << 20

// lowerRel is the relative error allowed between two values of Lower that
// the math orders: the tests' allowance against 60-digit references
// (Lower's doc: about 1e-14 relative, at most 1.1e-15 at large n).
const lowerRel = 1e-12

// FuzzBounds checks the closed forms at any point of their domain (with d
// k <= 2^20): Lower and UpperBound are finite, 0 <= LB <= UB (UB rounded
// up, LB exceeding the exact value by rounding only), and LB is
// nondecreasing in eps and in n = d k (a larger eps admits the same pair;
// n+1 flips can be post-processed into n). Every order is fuzzed, up to
// the largest float64 (issue 31: alpha above 1e6 used to be skipped to hide
// a NaN and an infinite asymptote; see pairDivergence and renyiLogit).
// Points outside the domain are skipped: Lower and UpperBound panic there
// by contract.
func FuzzBounds(f *testing.F) {
	f.Add(1, 1, 0.1, 5.0, 1.0, 0.5)
	f.Add(3, 7, 0.01, 50.0, 0.1, 2.0)
	f.Add(1000, 1, 0.4, 1.01, 3.0, 1e-3)
	f.Add(1, 1, 5e-324, 2.0, 700.0, 1.0)
	f.Add(2, 2, 0.49999999999999994, 1e6, 1e-300, 1e300)
	f.Add(100, 100, 0.3, 1.0000001, 1e-9, 1.0)
	// Issue 31: Lower was NaN here (log b_i + log Phi rounded at an ulp of
	// 16), and the asymptote +Inf at alpha = 1e308 (alpha D overflowed).
	f.Add(105, 123, 0.42, 1.785714285714573e13, 4038.0, 1.0)
	f.Add(105, 123, 0.42, 1e308, 4038.0, 1.0)
	f.Add(1, 1, 1e-6, 1e308, 1.0, 1e300)
	f.Add(1000, 1, 0.49999, 1e15, 300.0, 1.0)
	f.Fuzz(func(t *testing.T, d, k int, c, alpha, eps, deps float64) {
		if check.Point(d, k, c, alpha, eps) != nil || d > fuzzMaxN/k || !(deps >= 0) {
			t.Skip()
		}
		eps2 := math.Min(eps+deps, math.MaxFloat64)
		lb := Lower(d, k, c, alpha, eps)
		u := UpperBound(d, k, c, alpha, eps)
		for _, v := range []struct {
			name string
			x    float64
		}{{"Lower", lb}, {"Asymptote", u.Asymptote}, {"PostProcessing", u.PostProcessing}} {
			if math.IsNaN(v.x) || math.IsInf(v.x, 0) || v.x < 0 {
				t.Fatalf("%s(%d, %d, %v, %v, %v) = %v, want finite and >= 0", v.name, d, k, c, alpha, eps, v.x)
			}
		}
		if ub := u.Value(); lb > ub*(1+lowerRel) {
			t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: LB %v > UB %v", d, k, c, alpha, eps, lb, ub)
		}
		if lb2 := Lower(d, k, c, alpha, eps2); lb2 < lb*(1-lowerRel) {
			t.Errorf("d=%d k=%d c=%v alpha=%v: LB(eps=%v) = %v < LB(eps=%v) = %v", d, k, c, alpha, eps2, lb2, eps, lb)
		}
		if d < fuzzMaxN/(k+1) {
			if lbk := Lower(d, k+1, c, alpha, eps); lbk < lb*(1-lowerRel) {
				t.Errorf("d=%d c=%v alpha=%v eps=%v: LB(k=%d) = %v < LB(k=%d) = %v", d, c, alpha, eps, k+1, lbk, k, lb)
			}
		}
	})
}
