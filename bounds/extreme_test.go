package bounds

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/internal/logspace"
)

// TestExtremeOrdersSweep: at orders from 1e6 to the largest float64, Lower
// and UpperBound are finite, 0 <= LB <= UB (to 1e-12 relative), LB is
// nondecreasing in eps, and Renyi is at most log((1-p)/p), its limit as
// alpha -> Inf (issue 31: LB was NaN at alpha = 1.8e13, eps = 4038, and
// the asymptote +Inf at alpha = 1e308).
func TestExtremeOrdersSweep(t *testing.T) {
	t.Parallel()
	for _, alpha := range []float64{1e6, 1e9, 1.785714285714573e13, 1e16, 1e20, 1e100, 1e300, 1e308, math.MaxFloat64} {
		for _, c := range []float64{1e-300, 1e-6, 0.1, 0.42, 0.49999, 0.49999999999999994} {
			if r, lim := Renyi(alpha, c), logspace.LogOdds(c); math.IsNaN(r) || r < 0 || r > lim*(1+1e-15) {
				t.Errorf("Renyi(%v, %v) = %v, limit %v", alpha, c, r, lim)
			}
			for _, n := range [][2]int{{1, 1}, {7, 1}, {20, 10}, {105, 123}} {
				prev := 0.0
				for _, eps := range []float64{0, 1e-300, 1e-6, 1, 600, 4038, 1e300, math.MaxFloat64} {
					lb := Lower(n[0], n[1], c, alpha, eps)
					u := UpperBound(n[0], n[1], c, alpha, eps)
					if math.IsNaN(lb) || math.IsInf(lb, 0) || lb < 0 || math.IsNaN(u.Asymptote) || math.IsInf(u.Asymptote, 0) {
						t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: LB %v, asymptote %v", n[0], n[1], c, alpha, eps, lb, u.Asymptote)
						continue
					}
					if lb > u.Value()*(1+1e-12) || lb < prev*(1-1e-12) {
						t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: LB %v, UB %v, LB at the previous eps %v", n[0], n[1], c, alpha, eps, lb, u.Value(), prev)
					}
					prev = lb
				}
			}
		}
	}
}

// TestExtremeOrdersReference: the two findings of issue 31 and more points
// at alpha = 1e308, against 60-digit references. At alpha = 1e308 the
// references are the order-infinity limits (testdata/ref/gen_extreme_limit.py:
// lb -> max_j log(P_j/Q_j) with p = 1/(1+e^eps), the asymptote -> n
// log((1-c)/c)), which the finite-order values match far below float64
// resolution; at alpha = 1.785714285714573e13, eps = 4038 (p = e^-4038
// underflows, so the row cannot sit in bounds.csv) the reference is
// gen_bounds.py's compute at mp.dps = 60 (testdata/ref/README.md). Before
// the fix Lower was NaN at the first point, 0.8988 at the second, 0.7017 at
// the fourth, and the asymptote +Inf there.
func TestExtremeOrdersReference(t *testing.T) {
	t.Parallel()
	for _, r := range []struct {
		d, k                int
		c, alpha, eps       float64
		lb, asymptote, rTol float64
	}{
		{105, 123, 0.42, 1.785714285714573e13, 4038, 4037.9999999996503934, 4168.6183610769100928, 1e-15},
		{105, 123, 0.42, 1e308, 4038, 4038.0, 4168.6183610773040613, 1e-15},
		{3, 2, 0.42, 1e308, 4038, 1.9366403535783061841, 1.9366403535783061841, 1e-15},
		{1, 1, 0.1, 1e308, 1, 0.77613658526073719364, 2.1972245773362193828, 1e-15},
		{1, 1, 1e-6, 1e308, 1, 0.99999764959888916864, 13.815509557963774104, 1e-15},
		{10, 10, 0.49, 1e308, 0.001, 0.00096404641430089340514, 4.0005334613699161434, 1e-15},
		{2, 1, 1e-6, 1e308, 50, 27.631019115734673609, 27.631019115927548208, 1e-15},
	} {
		lb, u := Lower(r.d, r.k, r.c, r.alpha, r.eps), UpperBound(r.d, r.k, r.c, r.alpha, r.eps)
		if math.IsNaN(lb) || math.Abs(lb-r.lb) > r.rTol*r.lb {
			t.Errorf("Lower(%d, %d, %v, %v, %v) = %.17g, want %.17g", r.d, r.k, r.c, r.alpha, r.eps, lb, r.lb)
		}
		// The asymptote is rounded up by renyiUlps (16 ulps at alpha 1e308), and the
		// references take c as a decimal (0.49 and its double differ by
		// 9e-16 relative in log((1-c)/c)): within 1e-14 above.
		if a := u.Asymptote; !(a >= r.asymptote*(1-1e-15) && a <= r.asymptote*(1+1e-14)) {
			t.Errorf("asymptote(%d, %d, %v, %v) = %.17g, want %.17g rounded up", r.d, r.k, r.c, r.alpha, a, r.asymptote)
		}
	}
}
