package bounds

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
	"gonum.org/v1/gonum/floats/scalar"
)

// refRow is one row of testdata/ref/bounds.csv: 60-digit mpmath values,
// computed independently of this package (testdata/ref/README.md).
type refRow struct {
	d, k                              int
	c, alpha, eps, rc, p, lb, ub, thm float64
	hasThm                            bool
}

func readRef(t *testing.T) []refRow {
	t.Helper()
	vals, present := testref.Floats(t, "../testdata/ref/bounds.csv", 10, 100)
	rows := make([]refRow, len(vals))
	for i, v := range vals {
		rows[i] = refRow{int(v[0]), int(v[1]), v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], present[i][9]}
	}
	return rows
}

// The relative error bound the foundation issue asks for, at every point
// including alpha up to 1000, eps up to 50, c down to 1e-6, d k up to 1e4.
const relTol = 1e-12

func TestAgainstHighPrecision(t *testing.T) {
	t.Parallel()
	for _, r := range readRef(t) {
		check := func(name string, got, want float64) {
			t.Helper()
			if math.IsNaN(got) || math.IsInf(got, 0) || !scalar.EqualWithinRel(got, want, relTol) && got != want {
				t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: %s = %.17g, want %.17g (rel %.2g)",
					r.d, r.k, r.c, r.alpha, r.eps, name, got, want, (got-want)/want)
			}
		}
		check("Renyi(c)", Renyi(r.alpha, r.c), r.rc)
		check("P", P(r.alpha, r.eps), r.p)
		check("Lower", Lower(r.d, r.k, r.c, r.alpha, r.eps), r.lb)
		check("Upper", UpperBound(r.d, r.k, r.c, r.alpha, r.eps).Value(), r.ub)
		if r.hasThm {
			check("Theorem2", Theorem2(r.d, r.c, r.alpha, r.eps), r.thm)
		}
	}
}

// Sanity values of math.md section 4 (mpmath, 60 digits).
func TestMathMDSanity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ eps, want float64 }{
		{0.5, 0.36367349434860292234},
		{1, 0.73892175057578483328},
		{2, 1.3783500425456935648},
	} {
		if got := Lower(1, 1, 0.1, 5, tc.eps); !scalar.EqualWithinRel(got, tc.want, relTol) {
			t.Errorf("Lower(1, 1, 0.1, 5, %v) = %.17g, want %.17g", tc.eps, got, tc.want)
		}
	}
}

func TestEdges(t *testing.T) {
	t.Parallel()
	if got := P(5, 0); got != 0.5 {
		t.Errorf("P(5, 0) = %v, want 1/2", got)
	}
	if got := Renyi(5, 0.5); got != 0 {
		t.Errorf("Renyi(5, 1/2) = %v, want 0", got)
	}
	if got := Lower(3, 2, 0.1, 5, 0); got != 0 {
		t.Errorf("Lower at eps = 0 is %v, want 0", got)
	}
	// Huge eps: p underflows, the logit does not, and LB reaches the asymptote.
	for _, eps := range []float64{700, 1e4, 1e300} {
		lb := Lower(2, 3, 0.1, 5, eps)
		ub := UpperBound(2, 3, 0.1, 5, eps).Value()
		if math.IsNaN(lb) || math.IsInf(lb, 0) || lb > ub || ub-lb > 1e-12*ub {
			t.Errorf("eps=%v: LB = %v, UB = %v", eps, lb, ub)
		}
	}
	// The logit that Lower uses is on the feasible side exactly (the
	// bisection's invariant), and the next float above it is not: the
	// bisection went to the last bit. P adds only the rounding of expit.
	for _, eps := range []float64{1e-12, 0.3, 7, 49.5} {
		for _, alpha := range []float64{1.001, 2, 1000} {
			D := Logit(alpha, eps)
			if r := renyiLogit(alpha, D); r > eps {
				t.Errorf("alpha=%v eps=%v: r(Logit) = %.17g > eps", alpha, eps, r)
			}
			if r := renyiLogit(alpha, math.Nextafter(D, math.Inf(1))); r <= eps {
				t.Errorf("alpha=%v eps=%v: r(next float above Logit) = %.17g <= eps", alpha, eps, r)
			}
			// p* (where r = eps) lies within 2 ulps of P: r, decreasing,
			// crosses eps between the floats 2 below and 2 above.
			p := P(alpha, eps)
			lo, hi := p, p
			for range 2 {
				lo, hi = math.Nextafter(lo, 0), math.Nextafter(hi, 1)
			}
			if !(Renyi(alpha, lo) >= eps && Renyi(alpha, hi) <= eps) {
				t.Errorf("alpha=%v eps=%v: P = %.17g is not within 2 ulps of the root", alpha, eps, p)
			}
		}
	}
}

// Properties: 0 <= Theorem2 <= LB <= UB, LB nondecreasing in eps and in k.
func TestProperties(t *testing.T) {
	t.Parallel()
	for _, d := range []int{1, 2, 5, 30} {
		for _, c := range []float64{1e-4, 0.1, 0.3, 0.49} {
			for _, alpha := range []float64{1.5, 5, 50} {
				prevK := make(map[float64]float64)
				for k := 1; k <= 8; k *= 2 {
					prev := 0.0
					for eps := 0.0; eps <= 8; eps += 0.25 {
						lb := Lower(d, k, c, alpha, eps)
						ub := UpperBound(d, k, c, alpha, eps).Value()
						if lb < prev-1e-12*prev || lb > ub*(1+1e-12) || lb < 0 {
							t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: LB = %v (previous eps %v), UB = %v", d, k, c, alpha, eps, lb, prev, ub)
						}
						if k > 1 && lb < prevK[eps]*(1-1e-12) {
							t.Errorf("d=%d k=%d c=%v alpha=%v eps=%v: LB = %v below k/2's %v", d, k, c, alpha, eps, lb, prevK[eps])
						}
						if k == 1 {
							if th := Theorem2(d, c, alpha, eps); th < 0 || th > lb*(1+1e-12) {
								t.Errorf("d=%d c=%v alpha=%v eps=%v: Theorem2 = %v > LB = %v", d, c, alpha, eps, th, lb)
							}
						}
						prev = lb
						prevK[eps] = lb
					}
				}
			}
		}
	}
}

func TestPanics(t *testing.T) {
	t.Parallel()
	for _, f := range []func(){
		func() { Renyi(5, 0) },
		func() { Renyi(5, 0.6) },
		func() { Renyi(1, 0.2) },
		func() { P(5, -1) },
		func() { P(5, math.NaN()) },
		func() { Lower(0, 1, 0.1, 5, 1) },
		func() { Lower(1, 1, 0.5, 5, 1) },
		func() { UpperBound(1, 1, 0.1, math.Inf(1), 1) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			f()
		}()
	}
}
