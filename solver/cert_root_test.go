package solver

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/corner"
)

// bernLogD returns log of X^alpha Y^(1-alpha) + (1-X)^alpha (1-Y)^(1-alpha),
// by math.Pow (not the log-space code of certRootRatio).
func bernLogD(alpha, x, y float64) float64 {
	return math.Log(math.Pow(x, alpha)*math.Pow(y, 1-alpha) + math.Pow(1-x, alpha)*math.Pow(1-y, 1-alpha))
}

// bernFeasible reports whether (x, y) satisfies both Bernoulli constraints
// with a relative margin of 1e-9 in log E.
func bernFeasible(alpha, logE, x, y float64) bool {
	lim := logE * (1 - 1e-9)
	return bernLogD(alpha, x, y) <= lim && bernLogD(alpha, y, x) <= lim
}

// The root ratio bound holds at every sampled feasible (X, Y), on the
// boundary of the set (the largest feasible X for 1500 values of Y, by
// plain bisection) and inside it (random pairs), and it is tight: moved
// inward by 3e-3 (three times certRootTol) it fails at a sampled point.
func TestCertRootRatio(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		L, xcap, yfloor, alpha, eps float64
	}{
		{1.0204e-4, 1, 0, 5, 0.1},
		{1.0204e-4, 1, 0.255, 5, 0.1},
		{1.0204e-4, 0.505, 0, 5, 0.1},
		{1.0204e-4, 1, 0, 50, 1},
		{1.0204e-4, 1, 0.005, 50, 0.5},
		{0.0125, 1, 0, 5, 2},
		{0.0125, 0.55, 0, 4, 0.5},
		{0.3, 1, 0.1, 5, 1},
		{1e-9, 1, 0, 20, 3},
		{5, 1, 0, 5, 0.5},
	} {
		logE := (tc.alpha - 1) * tc.eps
		bound := certRootRatio(tc.alpha, logE, tc.L, tc.xcap, tc.yfloor)
		best := math.Inf(-1)
		check := func(x, y float64) {
			if !bernFeasible(tc.alpha, logE, x, y) || x > tc.xcap || y < tc.yfloor {
				return
			}
			r := math.Log(tc.L+x) - math.Log(tc.L+y)
			best = math.Max(best, r)
			if r > bound {
				t.Fatalf("%+v: ratio %.15g at X=%v Y=%v above the bound %.15g", tc, r, x, y, bound)
			}
		}
		// Boundary: Y log-spaced over [max(yfloor, 1e-12), 1) in L + Y.
		lo := math.Log(tc.L + math.Max(tc.yfloor, 1e-12))
		hi := math.Log(tc.L + 1)
		for i := range 1500 {
			y := math.Exp(lo+(hi-lo)*float64(i)/1500) - tc.L
			if y <= 0 || y >= 1 {
				continue
			}
			a, b := y, 1.0
			for range 80 {
				m := (a + b) / 2
				if bernFeasible(tc.alpha, logE, m, y) {
					a = m
				} else {
					b = m
				}
			}
			check(math.Min(a, tc.xcap), y)
		}
		// Inside: random pairs.
		for range 3000 {
			y := math.Exp(lo+(hi-lo)*rnd.Float64()) - tc.L
			x := y + (1-y)*rnd.Float64()*rnd.Float64()
			check(x, y)
		}
		if best < bound-3e-3 {
			t.Errorf("%+v: bound %.6g, best sampled ratio %.6g: a bound lowered by 3e-3 would pass", tc, bound, best)
		}
	}
}

// Every output ratio of feasible pairs in the symmetry domain lies in the
// root box: random pairs pushed to the boundary, perturbations of the
// Theorem 4 pair, and pairs on the corners of least and largest K[m, .]
// (where the Bernoulli bound is reached) for every output m. The largest
// and least ratios reached come within 0.02 of the root ends for at least
// one non-constant output (so a root moved inward by 0.02 fails).
func TestCertRootBox(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 6))
	for _, tc := range []struct {
		d, k          int
		c, alpha, eps float64
	}{
		{2, 1, 0.01, 5, 0.1},
		{2, 1, 0.01, 50, 1},
		{2, 1, 0.1, 5, 0.5},
		{2, 1, 0.3, 50, 2},
		{2, 2, 0.1, 5, 2},
		{3, 1, 0.1, 5, 1},
	} {
		p := newCertProgram(tc.d, tc.k, tc.c, tc.alpha, tc.eps, 0)
		ch := corner.Full(tc.d, tc.k, tc.c)
		n := 1 << tc.d
		pts := certRandomPoints(rnd, tc.d, tc.k, tc.c, tc.alpha, tc.eps, 400)
		for m := range p.M {
			row := p.lK[m*n : m*n+n]
			zmin, zmax := 0, 0
			for z, v := range row {
				if v < row[zmin] {
					zmin = z
				}
				if v > row[zmax] {
					zmax = z
				}
			}
			if zmin == zmax { // constant row: t_m = 1
				continue
			}
			for range 60 {
				x, y := make([]float64, n), make([]float64, n)
				// b log-uniform in [1e-6, 1], a up to e^3 times larger.
				b := math.Exp(-13.8 * rnd.Float64())
				a := math.Min(1, b*math.Exp(3*rnd.Float64()))
				if rnd.IntN(2) == 0 {
					a, b = b, a
				}
				x[zmax], x[zmin] = a, 1-a
				y[zmax], y[zmin] = b, 1-b
				y = certToBoundary(tc.alpha, tc.eps, x, y)
				if !certFeasible(tc.alpha, tc.eps, x, y) {
					continue
				}
				x, y = certCanonical(tc.d, x, y)
				pts = append(pts, certMakePoint(ch, tc.alpha, x, y))
			}
		}
		gapHi, gapLo := math.Inf(1), math.Inf(1)
		for _, pt := range pts {
			for m, l := range pt.lt {
				if l < p.rootLo[m] || l > p.rootHi[m] {
					t.Fatalf("%+v: output %d: log t = %.15g outside the root [%.15g, %.15g] at x=%v y=%v", tc, m, l, p.rootLo[m], p.rootHi[m], pt.x, pt.y)
				}
				if p.rootHi[m]-p.rootLo[m] < 1e-9 { // constant row
					continue
				}
				gapHi = math.Min(gapHi, p.rootHi[m]-l)
				gapLo = math.Min(gapLo, l-p.rootLo[m])
			}
		}
		t.Logf("%+v: %d points, closest to the root ends: %.3g (upper), %.3g (lower)", tc, len(pts), gapHi, gapLo)
		if gapHi > 0.02 || gapLo > 0.02 {
			t.Errorf("%+v: no point within 0.02 of a root end (%.3g, %.3g)", tc, gapHi, gapLo)
		}
	}
}
