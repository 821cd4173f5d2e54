package certify

import (
	"math"
	"math/rand/v2"
	"testing"
)

// On the diagonal psi is one number and its gradient is 0 (curvature):
// psi(p, p), psi_p(p, p) and psi_q(p, p), each summed over every j, at p
// from 2e-9 to 1 - 2e-9, agree with that within their errors.
func TestDiagonalIdentity(t *testing.T) {
	for _, p := range []struct {
		n             int
		c, alpha, eps float64
	}{{1, 0.01, 50, 0.05}, {15, 0.1, 5, 0.01}, {1000, 0.3, 20, 0.01}, {10000, 0.4999, 1.001, 1e-3}, {3342, 0.4572, 377.353, 0.003274}} {
		pr := newProblem(p.n, p.c, p.alpha, p.eps, DefaultTol)
		ref, ok := pr.value(pr.m.eval(fromLogit(-1), fromLogit(-1), 0, false))
		if !ok {
			t.Fatalf("%+v: no value at (-1, -1)", p)
		}
		for _, s := range []float64{-20, -8, -3, -0.5, 0, 2, 20} {
			x := fromLogit(s)
			pt := pr.m.eval(x, x, 1, false)
			v, ok := pr.value(pt)
			if !ok || math.Abs(v.v-ref.v) > v.err+ref.err {
				t.Errorf("%+v: psi(p, p) at logit %v is %v +- %v, at -1 %v +- %v", p, s, v.v, v.err, ref.v, ref.err)
			}
			for _, k := range []int{kU, kV} {
				if d := pr.deriv(pt, k, [2]float64{}); math.Abs(d.v) > d.err {
					t.Errorf("%+v: D^%v psi(p, p) at logit %v is %v +- %v", p, kindIJ[k], s, d.v, d.err)
				}
			}
		}
	}
}

// The curvature bound is never below psi (summed over every j) at the
// corners and random points of random boxes near the diagonal and around
// the tangent point, with or without windowed sums; made wrong on purpose
// (psi_qq's range over the box itself, or no remainder) it is caught.
func TestCurvatureValid(t *testing.T) {
	pts := []struct {
		n             int
		c, alpha, eps float64
	}{{10000, 0.4999, 5, 1e-3}, {10000, 0.495, 1.001, 1e-3}, {15, 0.1, 5, 0.01}, {2, 0.1, 5, 0.05}, {1, 0.01, 50, 0.05}, {1000, 0.3, 20, 0.01}, {400, 0.45, 2, 0.3}}
	run := func(wrong int) (below, closed, checked int) {
		testCurveWrong = wrong
		defer func() { testCurveWrong = 0 }()
		rng := rand.New(rand.NewPCG(13, 14))
		for _, p := range pts {
			pr := newProblem(p.n, p.c, p.alpha, p.eps, DefaultTol)
			target := pr.l0 + pr.tau
			for i := range 50 {
				// Widths 1/64 to 1; half the boxes meet the diagonal or lie
				// within a logit of it, half are around the tangent point
				// (-D, D), whose psi is l0 above psi_diag.
				w := math.Pow(2, -6*rng.Float64())
				s1 := -12*rng.Float64() + 0.5
				t1 := s1 + 2*rng.Float64() - 1.5
				if i%2 == 1 {
					s1, t1 = -pr.d-w*rng.Float64(), pr.d-w*rng.Float64()
				}
				b := &box{s1: s1, s2: s1 + w, t1: t1, t2: t1 + w*(0.5+rng.Float64())}
				ub, ok := pr.curvature(b)
				if !ok {
					continue
				}
				if ub <= target {
					closed++
				}
				above, n, first := psiAbove(pr, rng, [4]float64{b.s1, b.s2, b.t1, b.t2}, ub, 12)
				checked += n
				if above > 0 && wrong == 0 {
					t.Fatalf("%+v box %+v: %s", p, *b, first)
				}
				below += above
			}
		}
		return below, closed, checked
	}
	_, closed, checked := run(0)
	t.Logf("%d of 350 boxes closed; %d comparisons", closed, checked)
	if checked < 3000 || closed < 20 {
		t.Errorf("%d comparisons, %d boxes closed", checked, closed)
	}
	for _, w := range []int{curveNoHull, curveNoRemainder} {
		if below, _, _ := run(w); below == 0 {
			t.Errorf("wrong variant %d not caught", w)
		} else {
			t.Logf("wrong variant %d caught at %d points", w, below)
		}
	}
}
