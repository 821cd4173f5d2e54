package verify

import (
	"math"
	"math/big"
)

// The binomial cdfs of a profile certificate's amplification (amplifier,
// profile_phi.go), for any n the checker takes: X ~ Bin(n, c), 0 < c <
// 1/2, enclosed on a window [lo, hi] around the mode that holds every j
// whose weight is not negligible, with proved tail bounds outside it. The
// work is O(hi - lo) = O(sqrt(n binomNats)) 128-bit operations, once per
// step kind; each cdf value afterwards is a lookup.

// binomNats is the window's depth: lo - 1 and hi + 1 lie where the
// Chernoff bound exp(-n KL(j/n || c)) is below e^-binomNats (about
// 1e-326, under float64's smallest subnormal), so the tails outside are
// at most that; every j whose weight is within e^-700 of the mode's is
// inside.
const binomNats = 750

// binomWindow holds, for X ~ Bin(n, c), upper bounds cdf[i] on P(X <=
// lo + i) and lower bounds surv[i] on P(X >= lo + i), i = 0..hi-lo, and
// upper bounds tl on P(X < lo), tr on P(X > hi).
//
// The weights inside are u_j = B_j / B_mode, B_j = C(n, j) c^j
// (1-c)^(n-j), by the recurrences u_(j+1) = u_j (n-j)/(j+1) rho and
// u_(j-1) = u_j j/((n-j+1) rho) from u_mode = 1, rho = c/(1-c), in
// big.Float at 128 bits rounded to nearest: each operation has relative
// error at most 2^-128, rho one more, so u_j at distance k from the mode
// has relative error at most gamma_4k = 4k 2^-128/(1 - 4k 2^-128) <= 8k
// 2^-128; it is then rounded outward to float64 ends with that factor.
// Prefix and suffix sums of the ends (double-double, dd, with its error
// bound) give U_t >= sum_{lo<=j<=t} u_j and L_s <= sum_{s<=j<=hi} u_j,
// and S_lo <= S = sum_window u_j <= S_hi. Since the window's mass B_mode
// S is in [1 - tl - tr, 1], B_mode is in [(1 - tl - tr)/S_hi, 1/S_lo],
// so
//
//	P(X <= t) = P(X < lo) + B_mode sum_{lo<=j<=t} u_j <= tl + U_t/S_lo,
//	P(X >= s) >= B_mode sum_{s<=j<=hi} u_j >= (1 - tl - tr) L_s/S_hi,
//
// each rounded outward; the suffix sums keep P(X >= s) to relative
// accuracy in the upper tail (where m_t of the amplifier lives).
type binomWindow struct {
	n, lo, hi int
	tl, tr    float64
	cdf, surv []float64
}

// binomLogs encloses log c and log(1 - c) for a rational c in (0, 1) of
// any size (logBig: no float64 underflow).
func binomLogs(c *big.Rat) (lc, l1c fi) {
	return logBig(ratIval(c)), logBig(constIval(1).sub(ratIval(c)))
}

// chernoffUp returns an upper bound on P(X <= k) for k <= n c, or on
// P(X >= k) for k >= n c (the caller's duty; k in 0..n): exp(-n
// KL(k/n || c)) with n KL(k/n || c) = k log(k/(n c)) + (n-k) log((n-k)/(n
// (1-c))) bounded below (0 log 0 = 0).
func chernoffUp(n, k int, lc, l1c fi) float64 {
	ln := pt64(float64(n)).log()
	kl := pt64(0)
	if k > 0 {
		kf := pt64(float64(k))
		kl = kl.add(kf.mul(kf.log().sub(ln).sub(lc)))
	}
	if k < n {
		rf := pt64(float64(n - k))
		kl = kl.add(rf.mul(rf.log().sub(ln).sub(l1c)))
	}
	return min(1, expHi(-max(0, kl.lo)))
}

// newBinomWindow builds the window of Bin(n, c) for n >= 1 and 0 < c <
// 1/2 (the caller's duty). The window's ends are chosen in plain float64
// (any choice is sound: tl and tr are proved at the ends chosen).
func newBinomWindow(n int, c *big.Rat) *binomWindow {
	lc, l1c := binomLogs(c)
	// The mode floor((n+1) c), exactly.
	nc := new(big.Rat).Mul(c, new(big.Rat).SetInt64(int64(n+1)))
	mode := int(new(big.Int).Quo(nc.Num(), nc.Denom()).Int64())
	mode = min(max(mode, 0), n)
	// n KL(k/n || c) in float64, for the ends.
	lcm, l1cm := (lc.lo+lc.hi)/2, (l1c.lo+l1c.hi)/2
	nkl := func(k int) float64 {
		v, ln := 0.0, math.Log(float64(n))
		if k > 0 {
			v += float64(k) * (math.Log(float64(k)) - ln - lcm)
		}
		if k < n {
			v += float64(n-k) * (math.Log(float64(n-k)) - ln - l1cm)
		}
		return v
	}
	// lo: the smallest k <= mode with nkl(k) < binomNats (nkl falls on
	// [0, nc]); hi: the largest k >= mode with it (nkl rises on [nc, n]).
	// split returns the boundary in [a, b] of a predicate true at a and
	// false at b (presumably; monotone between): the last k it holds at.
	split := func(a, b int, p func(int) bool) int {
		for b-a > 1 {
			if m := (a + b) / 2; p(m) {
				a = m
			} else {
				b = m
			}
		}
		return a
	}
	far := func(k int) bool { return nkl(k) >= binomNats }
	lo, hi := 0, n
	if far(0) {
		lo = split(0, mode, far) + 1
	}
	if far(n) {
		hi = split(mode, n, func(k int) bool { return !far(k) })
	}
	w := &binomWindow{n: n, lo: lo, hi: hi, tl: 1, tr: 1}
	// The tails, proved: lo - 1 <= n c and hi + 1 >= n c are checked
	// exactly (else the tail is bounded by 1).
	ncr := new(big.Rat).Mul(c, new(big.Rat).SetInt64(int64(n)))
	if lo == 0 {
		w.tl = 0
	} else if new(big.Rat).SetInt64(int64(lo-1)).Cmp(ncr) <= 0 {
		w.tl = chernoffUp(n, lo-1, lc, l1c)
	}
	if hi == n {
		w.tr = 0
	} else if new(big.Rat).SetInt64(int64(hi+1)).Cmp(ncr) >= 0 {
		w.tr = chernoffUp(n, hi+1, lc, l1c)
	}
	// The weights u_j relative to the mode, enclosed (see the type).
	size := hi - lo + 1
	vlo, vhi := make([]float64, size), make([]float64, size)
	rho := new(big.Float).SetPrec(prec).SetRat(new(big.Rat).Quo(c, new(big.Rat).Sub(big.NewRat(1, 1), c)))
	store := func(j int, u *big.Float) {
		k := j - mode
		if k < 0 {
			k = -k
		}
		g := up(up(8*float64(k)) * 0x1p-128) // gamma_4k, rounded up
		vlo[j-lo] = max(0, dn(floatDown(u)*dn(1-g)))
		vhi[j-lo] = up(floatUp(u) * up(1+g))
	}
	one := new(big.Float).SetPrec(prec).SetInt64(1)
	store(mode, one)
	x := new(big.Float).SetPrec(prec)
	u := new(big.Float).SetPrec(prec).Set(one)
	for j := mode + 1; j <= hi; j++ {
		u.Mul(u, x.SetInt64(int64(n-j+1)))
		u.Quo(u, x.SetInt64(int64(j)))
		u.Mul(u, rho)
		store(j, u)
	}
	u.Set(one)
	for j := mode - 1; j >= lo; j-- {
		u.Mul(u, x.SetInt64(int64(j+1)))
		u.Quo(u, x.SetInt64(int64(n-j)))
		u.Quo(u, rho)
		store(j, u)
	}
	// Prefix sums of the upper ends (in place in vhi), suffix sums of the
	// lower ends (in vlo).
	var s dd
	for i, v := range vhi {
		s.add(v)
		vhi[i] = s.hi()
	}
	s = dd{}
	for i := size - 1; i >= 0; i-- {
		s.add(vlo[i])
		vlo[i] = max(0, s.lo())
	}
	sHi, sLo := vhi[size-1], vlo[0]
	keep := max(0, dn(1-up(w.tl+w.tr))) // 1 - tl - tr, from below
	for i := range size {
		vhi[i] = min(1, up(w.tl+up(vhi[i]/sLo)))
		vlo[i] = min(1, max(0, dn(dn(vlo[i]/sHi)*keep)))
	}
	if hi == n {
		vhi[size-1] = 1 // the whole mass: exactly 1
	}
	if lo == 0 {
		vlo[0] = 1 // P(X >= 0) = 1
	}
	w.cdf, w.surv = vhi, vlo
	return w
}

// cdfUp returns an upper bound on P(X <= t).
func (w *binomWindow) cdfUp(t int) float64 {
	switch {
	case t < 0:
		return 0
	case t >= w.n:
		return 1
	case t < w.lo:
		return w.tl
	case t > w.hi:
		return 1
	}
	return w.cdf[t-w.lo]
}

// survLo returns a lower bound on P(X >= s).
func (w *binomWindow) survLo(s int) float64 {
	switch {
	case s <= 0:
		return 1
	case s > w.hi:
		return 0
	case s < w.lo:
		return w.surv[0]
	}
	return w.surv[s-w.lo]
}

// binomL encloses L = log((1-c)/c) > 0 for a rational c in (0, 1/2), to
// relative accuracy even where c is near 1/2: L = log(1 + y) with y = (1
// - 2c)/c exact; below y = 2^-40 by y - y^2/2 <= log(1 + y) <= y (y >=
// 0: the bracket is 2^-41 y wide), else at 128 bits (log(1 + y) >= 2^-41:
// the 128-bit enclosure is relative to 2^-80).
func binomL(c *big.Rat) fi {
	y := new(big.Rat).Sub(big.NewRat(1, 1), new(big.Rat).Mul(big.NewRat(2, 1), c))
	y.Quo(y, c)
	yi := ratIval(y)
	if y.Cmp(new(big.Rat).SetFloat64(0x1p-40)) < 0 {
		lo := yi.sub(yi.sqr().div(constIval(2)))
		return fi{max(0, floatDown(lo.lo)), floatUp(yi.hi)}
	}
	return toFi(constIval(1).add(yi).log())
}
