package solver

import (
	"context"
	"math"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/internal/testref"
)

// bruteOne returns the largest objective of Algorithm 1 found by a dense
// scan, written from the paper's formulas with math.Pow and no code of this
// package: for each x on a grid, the feasible y form an interval (the
// constraints are convex) around y = x whose ends are found by bisection;
// F is convex in y, so its maximum over the interval is at an end.
func bruteOne(k int, c, alpha, eps float64, n int) (post, x, y float64) {
	E := math.Exp((alpha - 1) * eps)
	b := make([]float64, k+1)
	for m := range b {
		b[m] = math.Exp(lgammaBinom(k, m)) * math.Pow(c, float64(m)) * math.Pow(1-c, float64(k-m))
	}
	g := func(x, y float64) float64 {
		return math.Pow(x, alpha)*math.Pow(y, 1-alpha) + math.Pow(1-x, alpha)*math.Pow(1-y, 1-alpha)
	}
	feasible := func(x, y float64) bool { return g(x, y) <= E && g(y, x) <= E }
	F := func(x, y float64) float64 {
		var s float64
		for m := 0; m <= k; m++ {
			u := x*b[m] + (1-x)*b[k-m]
			v := y*b[m] + (1-y)*b[k-m]
			s += math.Pow(u, alpha) * math.Pow(v, 1-alpha)
		}
		return s
	}
	best := 1.0
	for i := 1; i < n; i++ {
		xi := float64(i) / float64(n)
		for _, end := range []float64{0, 1} {
			in, out := xi, end // feasible, infeasible (y = 0 or 1 is never feasible for 0 < x < 1)
			for range 60 {
				mid := (in + out) / 2
				if feasible(xi, mid) {
					in = mid
				} else {
					out = mid
				}
			}
			if f := F(xi, in); f > best {
				best, x, y = f, xi, in
			}
		}
	}
	return math.Log(best) / (alpha - 1), x, y
}

func lgammaBinom(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// The proved upper bound is never beaten by the brute force, the witness is
// feasible and at least LB, and the paper's d = 1 cases certify at the
// default tolerance.
func TestOneAgainstBruteForce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k            int
		c, alpha, ep float64
	}{
		{1, 0.1, 5, 0.5}, {1, 0.1, 5, 2}, {2, 0.1, 5, 1}, {4, 0.1, 5, 1},
		{4, 0.3, 2, 0.3}, {8, 0.01, 5, 3}, {16, 0.1, 5, 1}, {16, 0.1, 50, 2},
		{3, 0.2, 1.5, 0.05}, {2, 0.45, 20, 4}, {1, 0.01, 50, 0.1},
	} {
		r, err := One(context.Background(), tc.k, tc.c, tc.alpha, tc.ep, nil)
		if err != nil {
			t.Fatal(err)
		}
		brute, bx, by := bruteOne(tc.k, tc.c, tc.alpha, tc.ep, 2000)
		lb := bounds.Lower(1, tc.k, tc.c, tc.alpha, tc.ep)
		if brute > r.Upper+1e-12*r.Upper {
			t.Errorf("%+v: brute force %.15g at (%v, %v) beats the proved upper bound %.15g", tc, brute, bx, by, r.Upper)
		}
		if r.Lower < lb*(1-1e-14) || r.Lower > r.Upper {
			t.Errorf("%+v: witness %.15g, LB %.15g, upper %.15g", tc, r.Lower, lb, r.Upper)
		}
		if r.Status != Certified || r.Upper-r.Lower > DefaultTol {
			t.Errorf("%+v: status %v, gap %.3g", tc, r.Status, r.Upper-r.Lower)
		}
		if r.DivPQ > tc.ep*(1+1e-12) || r.DivQP > tc.ep*(1+1e-12) {
			t.Errorf("%+v: witness divergences %v, %v exceed eps", tc, r.DivPQ, r.DivQP)
		}
		if s := r.P[0] + r.P[1]; math.Abs(s-1) > 1e-15 {
			t.Errorf("%+v: P sums to %v", tc, s)
		}
	}
}

// A cancelled search keeps a valid, honest answer.
func TestOneCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := One(ctx, 16, 0.1, 5, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Complete || r.Status == Certified {
		t.Errorf("cancelled search reports complete=%v status=%v", r.Stats.Complete, r.Status)
	}
	if ub := bounds.UpperBound(1, 16, 0.1, 5, 1).Value(); r.Upper > ub || r.Upper < r.Lower {
		t.Errorf("cancelled search: upper %v, lower %v, closed form %v", r.Upper, r.Lower, ub)
	}
}

// With the box limit at 1 the search cannot close the hard case, and must
// say so rather than claim a certificate.
func TestOneBoxLimit(t *testing.T) {
	t.Parallel()
	r, err := One(context.Background(), 16, 0.1, 5, 1, &Settings{MaxBoxes: 1, Tol: 1e-14})
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Complete || r.Status == Certified || r.Stats.Open == 0 {
		t.Errorf("box-limited search: complete=%v status=%v open=%d", r.Stats.Complete, r.Status, r.Stats.Open)
	}
}

func TestOneInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k            int
		c, alpha, ep float64
		tol          float64
	}{{0, 0.1, 5, 1, 0}, {1, 0.5, 5, 1, 0}, {1, 0.1, 1, 1, 0}, {1, 0.1, 5, -1, 0}, {1, 0.1, 5, math.NaN(), 0}, {1, 0.1, 5, 1, -1}} {
		if _, err := One(context.Background(), tc.k, tc.c, tc.alpha, tc.ep, &Settings{Tol: tc.tol}); err == nil {
			t.Errorf("One(%+v) gave no error", tc)
		}
	}
}

// The certified interval contains the d = 1 maximum computed independently
// at high precision (testdata/ref/post_d1.csv: mpmath, boundary scan and
// golden-section refinement; see testdata/ref/README.md), and is within
// the default tolerance of it.
func TestOneAgainstReference(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/ref/post_d1.csv", 5, 50)
	for _, v := range rows {
		k, c, alpha, eps, want := int(v[0]), v[1], v[2], v[3], v[4]
		r, err := One(context.Background(), k, c, alpha, eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The reference is a maximum found by search, so it may sit below
		// the true Post by its own search error but never above it.
		const slack = 1e-12
		if want > r.Upper*(1+slack) || r.Lower > want*(1+slack)+slack {
			t.Errorf("k=%d c=%v alpha=%v eps=%v: reference %.17g outside [%.17g, %.17g]", k, c, alpha, eps, want, r.Lower, r.Upper)
		}
		if r.Status != Certified || want-r.Lower > DefaultTol {
			t.Errorf("k=%d c=%v alpha=%v eps=%v: status %v, witness %.17g, reference %.17g", k, c, alpha, eps, r.Status, r.Lower, want)
		}
	}
}

// Post is nondecreasing in eps (a looser input guarantee) and in k (more
// samples reveal more); the certified values must show it up to the
// tolerance.
func TestOneMonotone(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{0.01, 0.1, 0.3} {
		for _, alpha := range []float64{2, 5, 50} {
			prevK := map[float64]float64{}
			for k := 1; k <= 4; k++ {
				prev := 0.0
				for eps := 0.25; eps <= 4; eps += 0.25 {
					r, err := One(context.Background(), k, c, alpha, eps, nil)
					if err != nil {
						t.Fatal(err)
					}
					if r.Upper < prev-DefaultTol {
						t.Errorf("k=%d c=%v alpha=%v: Post decreases in eps: [%v, %v] at eps=%v after %v", k, c, alpha, r.Lower, r.Upper, eps, prev)
					}
					if r.Upper < prevK[eps]-DefaultTol {
						t.Errorf("k=%d c=%v alpha=%v eps=%v: Post decreases in k: %v after %v", k, c, alpha, eps, r.Upper, prevK[eps])
					}
					prev, prevK[eps] = r.Lower, r.Lower
				}
			}
		}
	}
}

// TestOneNearOneAgainstReference: at orders alpha = 1.0001 to 1.05 and eps
// down to 1e-3, where One works on (alpha-1) R and its float64 error is
// divided by alpha - 1, One's Upper is at or above, and its Lower at or
// below, Post computed at 60 digits (testdata/ref/one_near_one.csv: d = 1,
// k = 1, where Post = LB by Theorem 4). Before the evaluation error of log F
// entered the bound (logF's e), Lower exceeded Post by up to 1.2e-12 here.
func TestOneNearOneAgainstReference(t *testing.T) {
	t.Parallel()
	rows, _ := testref.Floats(t, "../testdata/ref/one_near_one.csv", 5, 108)
	for _, v := range rows {
		k, c, alpha, eps, post := int(v[0]), v[1], v[2], v[3], v[4]
		r, err := One(context.Background(), k, c, alpha, eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !(r.Upper >= post) || !(r.Lower <= post) {
			t.Errorf("k=%d c=%v alpha=%v eps=%v: [%.17g, %.17g] does not hold Post %.17g (status %v)", k, c, alpha, eps, r.Lower, r.Upper, post, r.Status)
		}
		if !NearOne(alpha, DefaultTol) && r.Status != Certified {
			t.Errorf("k=%d c=%v alpha=%v eps=%v: status %v, gap %.3g", k, c, alpha, eps, r.Status, r.Upper-r.Lower)
		}
	}
}
