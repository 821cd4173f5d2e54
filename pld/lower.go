package pld

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/internal/logspace"
)

// counts holds, for the counts j of ones whose mass matters (the windows
// of Binomial(n, c) and of Binomial(n, 1-c)), x = log b_c(j) and y = log
// b_c(n - j): what the attaining mechanism's output pair is made of, kept
// across the levels the lower search tries.
type counts struct {
	x, y []float64
}

func newCounts(n int, c float64) *counts {
	w := newBinomial(n, c)
	q := 1 - c
	cs := &counts{}
	add := func(j int) {
		cs.x = append(cs.x, logspace.BinomPMF(j, n, c, q))
		cs.y = append(cs.y, logspace.BinomPMF(n-j, n, c, q))
	}
	for j := w.lo; j <= w.hi; j++ {
		add(j)
	}
	for j := n - w.hi; j <= n-w.lo; j++ {
		if j < w.lo || j > w.hi {
			add(j)
		}
	}
	return cs
}

// attaining returns the optimistic PLD of a real mechanism whose release
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
// tests. cs holds the binomial terms of (n, c) (newCounts).
func attaining(p Profile, cs *counts, eps0, h float64, reverse bool) (*PLD, error) {
	if p.NP == nil {
		return nil, fmt.Errorf("pld: %s has no known dominating pair: no lower side", p.Name)
	}
	tst := p.NP(math.Max(0, eps0))
	a, b := tst.A, tst.B
	if reverse {
		a, b = b, a
	}
	la, l1a := logOr(a), logOr(1-a)
	lb, l1b := logOr(b), logOr(1-b)
	idx := make([]int, len(cs.x))
	mass := make([]float64, len(cs.x))
	inf := 0.0
	lo, hi := math.MaxInt, math.MinInt
	for j, x := range cs.x {
		y := cs.y[j]
		lp := logAdd(la+x, l1a+y)
		lq := logAdd(lb+x, l1b+y)
		m := math.Exp(lp)
		switch {
		case m == 0:
			idx[j] = math.MinInt
		case math.IsInf(lq, -1):
			inf += m
			idx[j] = math.MinInt
		default:
			i := int(math.Floor((lp - lq) / h))
			idx[j], mass[j] = i, m
			lo, hi = min(lo, i), max(hi, i)
		}
	}
	if lo > hi { // all mass at infinity
		return &PLD{H: h, Lo: 0, Probs: []float64{0}, Inf: math.Min(1, inf)}, nil
	}
	if hi-lo+1 > MaxPoints {
		return nil, fmt.Errorf("pld: the attaining mechanism has %d losses at discretization %v (at most %d): %w", hi-lo+1, h, MaxPoints, ErrTooLarge)
	}
	probs := make([]float64, hi-lo+1)
	for j, i := range idx {
		if i != math.MinInt {
			probs[i-lo] += mass[j]
		}
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
// the attaining mechanism at level eps (attaining's output pair, summed
// exactly over the counts in the binomial windows, rounded down by the
// summation's error and the masses' few ulps). It equals the exact
// amplified delta' up to that rounding (docs/compose.md).
func attainedDelta(p Profile, cs *counts, eps float64) float64 {
	tst := p.NP(eps)
	g := math.Exp(eps)
	hs := func(a, b float64) float64 {
		la, l1a, lb, l1b := logOr(a), logOr(1-a), logOr(b), logOr(1-b)
		s, mag := 0.0, 0.0
		for j, x := range cs.x {
			y := cs.y[j]
			pj, qj := math.Exp(logAdd(la+x, l1a+y)), math.Exp(logAdd(lb+x, l1b+y))
			if v := pj - g*qj; v > 0 {
				s += v
				mag += pj + g*qj
			}
		}
		return s - (64+float64(len(cs.x)))*ulp*mag
	}
	return math.Max(0, math.Max(hs(tst.A, tst.B), hs(tst.B, tst.A)))
}
