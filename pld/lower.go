package pld

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/internal/logspace"
)

// Attaining returns the optimistic PLD of a real mechanism whose release
// attains the amplified profile at eps0 (docs/compose.md, lower side): it
// runs the Neyman-Pearson test of p's dominating pair at level e^eps0
// (p.NP, which accepts with probability A under P and B under Q) and sets
// theta = (c, ..., c) on acceptance, (1-c, ..., 1-c) otherwise; the n = d k
// released bits reduce to their count, so the output pair is
//
//	P'_j = A b_c(j) + (1-A) b_c(n-j),  Q'_j = B b_c(j) + (1-B) b_c(n-j),
//
// b_c the Binomial(n, c) pmf, j = 0..n. Losses log(P'_j/Q'_j) are rounded
// down to the grid i h and counts outside the binomial windows dropped, so
// the PLD's profile lies below the mechanism's (a lower bound on the
// amplified profile, composed or not). reverse swaps P' and Q' (the same
// mechanism's other direction). It returns an error when p has no NP
// tests, and for n or c out of range.
func Attaining(p Profile, n int, c, eps0, h float64, reverse bool) (*PLD, error) {
	if p.NP == nil {
		return nil, fmt.Errorf("pld: %s has no known dominating pair: no lower side", p.Name)
	}
	if n < 1 || n > MaxN || !(c > 0 && c < 0.5) || !(h > 0) {
		return nil, fmt.Errorf("pld.Attaining: n %d, c %v or h %v out of range", n, c, h)
	}
	tst := p.NP(math.Max(0, eps0))
	a, b := tst.A, tst.B
	if reverse {
		a, b = b, a
	}
	la, l1a := logOr(a), logOr(1-a)
	lb, l1b := logOr(b), logOr(1-b)
	w := newBinomial(n, c)
	q := 1 - c
	lbin := func(j int) float64 { return logspace.BinomPMF(j, n, c, q) }
	buckets := map[int]float64{}
	inf := 0.0
	seen := func(j int) bool { return j >= w.lo && j <= w.hi }
	visit := func(j int) {
		x, y := lbin(j), lbin(n-j)
		lp := logAdd(la+x, l1a+y)
		lq := logAdd(lb+x, l1b+y)
		mass := math.Exp(lp)
		if mass == 0 {
			return
		}
		if math.IsInf(lq, -1) {
			inf += mass
			return
		}
		buckets[int(math.Floor((lp-lq)/h))] += mass
	}
	for j := w.lo; j <= w.hi; j++ {
		visit(j)
	}
	for j := n - w.hi; j <= n-w.lo; j++ {
		if !seen(j) {
			visit(j)
		}
	}
	lo, hi := math.MaxInt, math.MinInt
	for i := range buckets {
		lo, hi = min(lo, i), max(hi, i)
	}
	if lo > hi { // all mass at infinity
		return &PLD{H: h, Lo: 0, Probs: []float64{0}, Inf: math.Min(1, inf)}, nil
	}
	if hi-lo+1 > MaxPoints {
		return nil, fmt.Errorf("pld.Attaining: %d losses at discretization %v (at most %d): %w", hi-lo+1, h, MaxPoints, ErrTooLarge)
	}
	probs := make([]float64, hi-lo+1)
	for i, v := range buckets {
		probs[i-lo] = v
	}
	// Rounding of the masses: each within a few ulps; an optimistic PLD
	// keeps it in its slack.
	return &PLD{H: h, Lo: lo, Probs: probs, Inf: inf, Slack: 16 * ulp}, nil
}

func logOr(x float64) float64 {
	if x <= 0 {
		return math.Inf(-1)
	}
	return math.Log(x)
}

func logAdd(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	return logspace.Add(a, b)
}

// attainedDelta returns a lower bound on the amplified profile at eps >= 0
// in both directions: the hockey-stick divergence H_{e^eps}, both ways, of
// the attaining mechanism at level eps (Attaining's output pair, summed
// exactly over the counts in the binomial windows, rounded down by the
// summation's error and the masses' few ulps). It equals the exact
// amplified delta' up to that rounding (docs/compose.md).
func attainedDelta(p Profile, n int, c, eps float64) float64 {
	tst := p.NP(eps)
	w := newBinomial(n, c)
	q := 1 - c
	g := math.Exp(eps)
	hs := func(a, b float64) float64 {
		la, l1a, lb, l1b := logOr(a), logOr(1-a), logOr(b), logOr(1-b)
		s, mag := 0.0, 0.0
		visit := func(j int) {
			x, y := logspace.BinomPMF(j, n, c, q), logspace.BinomPMF(n-j, n, c, q)
			pj, qj := math.Exp(logAdd(la+x, l1a+y)), math.Exp(logAdd(lb+x, l1b+y))
			if v := pj - g*qj; v > 0 {
				s += v
				mag += pj + g*qj
			}
		}
		for j := w.lo; j <= w.hi; j++ {
			visit(j)
		}
		for j := n - w.hi; j <= n-w.lo; j++ {
			if j < w.lo || j > w.hi {
				visit(j)
			}
		}
		return s - (64+float64(w.hi-w.lo))*ulp*mag
	}
	return math.Max(0, math.Max(hs(tst.A, tst.B), hs(tst.B, tst.A)))
}
