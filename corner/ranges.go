package corner

import (
	"math"

	"github.com/bernamp/bernamp/internal/logspace"
)

// NewRanges returns the channel of k samples on coordinate groups with
// per-group ranges: group g holds sizes[g] coordinates sharing the range
// [lo[g], hi[g]], and a corner with bit 0 on group g gives Binomial(k
// sizes[g], lo[g]) counts there, bit 1 gives Binomial(k sizes[g], hi[g]).
// Corners of {lo_l, hi_l}^d are the extreme points of a product of
// intervals, as {c, 1-c}^d are for [c, 1-c]^d (the paper's Lemma 1 allows
// any product). New(k, c, sizes) is the case lo = c, hi = 1-c, up to the
// rounding of 1-c (New uses the mirror image of Binomial(n, c) for bit 1).
//
// It panics unless k >= 1, lo, hi and sizes have the same length (at most
// 40), every size is >= 1 and 0 < lo[g] < hi[g] < 1.
func NewRanges(k int, sizes []int, lo, hi []float64) *Channel {
	if k < 1 || len(sizes) > 40 || len(lo) != len(sizes) || len(hi) != len(sizes) {
		panic(badRanges)
	}
	ch := &Channel{k: k, c: math.NaN(), groups: append([]int(nil), sizes...), outs: 1}
	for g, n := range sizes {
		if n < 1 || !(lo[g] > 0 && lo[g] < hi[g] && hi[g] < 1) {
			panic(badRanges)
		}
		t := k * n
		var w, lin [2][]float64
		for b, theta := range [2]float64{lo[g], hi[g]} {
			w[b], lin[b] = make([]float64, t+1), make([]float64, t+1)
			for m := range w[b] {
				w[b][m] = logspace.BinomPMF(m, t, theta, 1-theta)
				lin[b][m] = math.Exp(w[b][m])
			}
		}
		ch.logW = append(ch.logW, w)
		ch.w = append(ch.w, lin)
		ch.outs *= t + 1
	}
	return ch
}

// FullRanges returns the channel of the full program for per-coordinate
// ranges [lo[l], hi[l]]: d = len(lo) groups of size 1, (k+1)^d outputs.
// Corner z has bit l at position d-1-l, bit 1 meaning theta_l = hi[l]. It
// panics as NewRanges does.
func FullRanges(k int, lo, hi []float64) *Channel {
	g := make([]int, len(lo))
	for i := range g {
		g[i] = 1
	}
	return NewRanges(k, g, lo, hi)
}

const badRanges = "corner: k must be >= 1, 0 < lo < hi < 1, group sizes >= 1, lengths equal, at most 40 groups"
