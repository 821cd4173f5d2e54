package verify

import (
	"math"
	"math/big"
)

// The input profiles of a profile certificate (certfile.KindProfile) and
// their amplification, in float64 interval arithmetic (fi, every
// operation rounded outward; exp by this package's exp64.go).

// invSqrt2Pi encloses 1/sqrt(2 pi) = 0.398942280401432677939946059934381868475858631164934657...
// (the decimal digits are the constant's; the enclosure is 1e-40 wide
// around its first 50 digits, then rounded outward to float64).
var invSqrt2Pi = func() fi {
	r, _ := new(big.Rat).SetString("0.39894228040143267793994605993438186847585863116493")
	w := big.NewRat(1, 1)
	w.SetString("1e-40")
	lo, hi := new(big.Rat).Sub(r, w), new(big.Rat).Add(r, w)
	return fi{ratFi(lo).lo, ratFi(hi).hi}
}()

// normPDF encloses phi(x) = e^(-x^2/2)/sqrt(2 pi) for an exact x.
func normPDF(x float64) fi {
	return invSqrt2Pi.mul(pt64(x).sqr().scale(0.5).neg().exp())
}

// phiSplit: below it Phi's series, from it the continued fraction.
const phiSplit = 2

// mills encloses the Mills ratio R(z) = (1 - Phi(z))/phi(z) for z >=
// phiSplit by Laplace's continued fraction
//
//	R(z) = 1/(z + 1/(z + 2/(z + 3/(z + ...)))),
//
// whose partial numerators and denominators are positive, so that its
// convergents alternate around the value (odd ones above, even ones
// below, each pair closer): the hull of the enclosures of two successive
// convergents contains R(z). At z >= 2, 160 levels leave them within
// about 1e-20 relative (1e-23 at 200).
func mills(z float64) fi {
	conv := func(k int) fi {
		t := pt64(z)
		for j := k - 1; j >= 1; j-- {
			t = pt64(z).add(pt64(float64(j)).div(t))
		}
		return pt64(1).div(t)
	}
	return conv(160).hull(conv(161))
}

// phiSeries encloses S(x) = sum_{k>=0} x^(2k+1)/(1 3 ... (2k+1)) for 0 <=
// x < phiSplit, with Phi(x) = 1/2 + phi(x) S(x) (and S odd): the terms
// are positive, the ratio of term k+1 to term k is x^2/(2k+3), so the
// terms from K on sum to at most term_K / (1 - x^2/(2K+3)) once x^2 <
// 2K+3; the sum stops when that bound is below 2^-70 of the sum.
func phiSeries(x float64) fi {
	term := pt64(x)
	sum := pt64(0)
	x2 := pt64(x).sqr()
	for k := 0; ; k++ {
		sum = sum.add(term)
		term = term.mul(x2).div(pt64(float64(2*k + 3))) // term k+1
		q := x2.div(pt64(float64(2*k + 5)))             // ratio bound from term k+1 on
		if q.hi < 1 {
			rem := term.hi / dn(1-q.hi)
			if up(rem) <= sum.lo*0x1p-70 || k > 400 {
				return sum.add(fi{0, up(rem)})
			}
		}
	}
}

// phiAt encloses the standard normal cdf Phi(x) at an exact x: the
// continued fraction in the tails (Phi(x) = phi(x) R(-x) for x <= -2,
// 1 - phi(x) R(x) for x >= 2), the series between (where 1/2 - phi S
// cancels by at most 0.5/Phi(-2) = 22: a few hundred ulps).
func phiAt(x float64) fi {
	switch {
	case x <= -phiSplit:
		return normPDF(x).mul(mills(-x))
	case x >= phiSplit:
		r := pt64(1).sub(normPDF(x).mul(mills(x)))
		return fi{max(r.lo, 0), min(r.hi, 1)}
	}
	v := normPDF(x).mul(phiSeries(math.Abs(x)))
	if x < 0 {
		v = v.neg()
	}
	r := pt64(0.5).add(v)
	return fi{max(r.lo, 0), min(r.hi, 1)}
}

// phiFi encloses Phi over the interval x (Phi increases).
func phiFi(x fi) fi { return fi{phiAt(x.lo).lo, phiAt(x.hi).hi} }

// gaussianUp returns an upper bound on the Gaussian mechanism's profile
// (Balle and Wang 2018, Theorem 8) at eps >= 0, mu = sensitivity/sigma:
//
//	delta_G(eps) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu),
//
// evaluated at the point eps (the profile is non-increasing: an upper
// bound at eps bounds it on [eps, inf)), clamped to [0, 1].
func gaussianUp(mu fi, eps float64) float64 {
	e := pt64(eps)
	em := e.div(mu)
	h := mu.scale(0.5)
	a := h.sub(em)
	b := h.neg().sub(em)
	v := phiFi(a).sub(e.exp().mul(phiFi(b)))
	return min(1, max(0, v.hi))
}

// amplifier bounds the exact amplified profile (the theorem of
// docs/compose.md): for eps' >= 0, g = e^eps' and delta = delta_M(eps'),
//
//	delta'(eps') = max_t [ F_t ]_+ ,  F_t = (M_t - m_t) delta - m_t (g - 1),
//
// M_t = P(Bin(n, c) <= t), m_t = P(Bin(n, 1-c) <= t) = P(Bin(n, c) >= n -
// t), at most delta (post-processing). Each F_t increases in delta (M_t
// >= m_t: Bin(n, c) is stochastically below Bin(n, 1-c)) and in M_t, and
// decreases in m_t and g, so upper bounds on delta and M_t and lower ones
// on m_t and g give an upper bound on each F_t.
//
// Which t. Take the inputs d >= delta and gm1 <= g - 1 as exact numbers
// and F_t at them (an upper bound on the true F_t, each t). With F_-1 =
// 0, F_t - F_(t-1) = b_c(t) d - b_(1-c)(t) (d + gm1), b the pmfs, and
// b_c(t)/b_(1-c)(t) = ((1-c)/c)^(n-2t), so the increment is positive iff
// L (n - 2t) > log R, L = log((1-c)/c) > 0, R = (d + gm1)/d >= 1: iff t <
// x = (n - log R/L)/2. That holds for every t up to t* = ceil(x) - 1
// and for none above, so max_(t >= -1) F_t = F_(t*) (0 when t* < 0).
// With x enclosed in [xlo, xhi] (L and log R enclosed, every operation
// rounded outward), t* is in [ceil(xlo) - 1, ceil(xhi) - 1], so the
// largest upper bound over that set (one or two t: x is enclosed to
// about n ulps) is at least F_(t*), hence at least every F_t. A set of
// more than maxCandidates t (only where L or log R is not enclosed, as at
// an overflow of gm1/d) gives delta itself, which is always an upper
// bound.
type amplifier struct {
	n int // 0: no amplification (delta' = delta)
	b *binomWindow
	L fi // log((1-c)/c)
}

// maxCandidates caps the t evaluated per call of amplifier.up.
const maxCandidates = 64

// newAmplifier returns the amplifier of n >= 1 coins of bias c in (0,
// 1/2).
func newAmplifier(n int, c *big.Rat) *amplifier {
	return &amplifier{n: n, b: newBinomWindow(n, c), L: binomL(c)}
}

// candidates returns the range [t0, t1] of t holding t* (empty when t1 <
// t0), or ok false when it holds more than maxCandidates values.
func (a *amplifier) candidates(d, gm1 float64) (t0, t1 int, ok bool) {
	// log R = log(1 + gm1/d), enclosed; where gm1/d overflows, log(d +
	// gm1) - log d with log(d + gm1) <= log 2 + log max(d, gm1).
	lRlo := max(0, logLo(max(1, dn(1+dn(gm1/d)))))
	lRhi := logHi(max(1, up(1+up(gm1/d))))
	if math.IsInf(lRhi, 1) {
		lRlo = max(0, dn(logLo(dn(d+gm1))-logHi(d)))
		lRhi = up(up(ln2Fi.hi+logHi(max(d, gm1))) - logLo(d))
	}
	// q = log R / L, enclosed (L.lo may have underflowed to 0).
	qlo := dn(lRlo / a.L.hi)
	qhi := 0.0
	if lRhi > 0 {
		qhi = math.Inf(1)
		if a.L.lo > 0 {
			qhi = up(lRhi / a.L.lo)
		}
	}
	n := float64(a.n)
	xlo, xhi := dn(dn(n-qhi)*0.5), up(up(n-qlo)*0.5)
	if xlo != xlo || xhi != xhi {
		return 0, 0, false
	}
	if xhi <= 0 {
		return 0, -1, true // t* < 0: every F_t <= 0
	}
	t1 = min(int(math.Ceil(xhi))-1, a.n-1) // xhi <= n/2 + rounding
	t0 = 0
	if xlo > 0 {
		t0 = int(math.Ceil(xlo)) - 1
	}
	return t0, t1, t1-t0 < maxCandidates
}

// up returns an upper bound on delta'(eps') from an upper bound delta on
// delta_M(eps') and a lower bound gm1 on e^eps' - 1.
func (a *amplifier) up(delta, gm1 float64) float64 {
	if a.n == 0 || delta == 0 {
		return delta
	}
	gm1 = min(max(gm1, 0), math.MaxFloat64) // a lower bound stays one
	t0, t1, ok := a.candidates(delta, gm1)
	if !ok {
		return delta
	}
	best := 0.0
	for t := t0; t <= t1; t++ {
		best = max(best, a.at(t, delta, gm1))
	}
	return min(best, delta)
}

// at returns an upper bound on F_t at d = delta, g - 1 = gm1 (exact
// inputs): upper bounds on M_t, lower ones on m_t.
func (a *amplifier) at(t int, delta, gm1 float64) float64 {
	M, m := a.b.cdfUp(t), a.b.survLo(a.n-t)
	// M d from above minus m (d + gm1) from below (all terms >= 0; the
	// sum rounded down stays finite).
	return up(up(M*delta) - dn(m*dn(delta+gm1)))
}

// laplaceUp returns an upper bound on the Laplace mechanism's profile at
// eps >= 0, e0 = sensitivity/b: delta(eps) = 1 - e^((eps - e0)/2) below
// e0, 0 from e0 on (it increases in e0).
func laplaceUp(e0 fi, eps float64) float64 {
	if eps >= e0.hi {
		return 0
	}
	x := pt64(eps).sub(e0).scale(0.5)
	return min(1, max(0, up(1-expLo(x.lo))))
}

// rrUp returns an upper bound on binary randomized response's profile at
// eps >= 0, q = max(p, 1-p): delta(eps) = [q - e^eps (1 - q)]_+ (it
// increases in q).
func rrUp(q fi, eps float64) float64 {
	v := q.hi - dn(expLo(eps)*dn(1-q.hi))
	return min(1, max(0, up(v)))
}

// subsampledRemoveUp returns an upper bound on the remove direction's
// profile of the Gaussian mechanism on a Poisson sample of rate q (mu =
// sensitivity/sigma): P = (1-q) N(0, 1) + q N(mu, 1) against Q = N(0, 1),
// alpha = e^eps, the test x > u at the likelihood-ratio threshold u =
// log((alpha - 1 + q)/q)/mu + mu/2 attains
//
//	delta(eps) = q Phibar(u - mu) - (alpha - 1 + q) Phibar(u).
//
// u is only enclosed, so the bound is the supremum over the enclosure of
// the two monotone terms (the first falls in u, the second rises): above
// the value at the exact u.
func subsampledRemoveUp(mu, q fi, eps float64) float64 {
	w := pt64(eps).exp().sub(pt64(1)).add(q) // alpha - 1 + q > 0
	if !(w.lo > 0) {
		w.lo = q.lo
	}
	u := w.div(q).log().div(mu).add(mu.scale(0.5))
	a := phiFi(mu.sub(u)) // Phibar(u - mu) = Phi(mu - u)
	b := phiFi(u.neg())   // Phibar(u)
	v := q.hi*a.hi - dn(w.lo*b.lo)
	return min(1, max(0, up(v)))
}

// subsampledAddUp returns an upper bound on the add direction's profile
// (P and Q swapped): with w = 1 - alpha (1-q), 0 once w <= 0, else the test
// x < u, u = log((e^-eps - 1 + q)/q)/mu + mu/2, attains
//
//	delta(eps) = w Phi(u) - alpha q Phi(u - mu),
//
// bounded over the enclosure of u as subsampledRemoveUp.
func subsampledAddUp(mu, q fi, eps float64) float64 {
	alpha := pt64(eps).exp()
	w := pt64(1).sub(alpha.mul(pt64(1).sub(q)))
	if w.hi <= 0 {
		return 0
	}
	arg := pt64(-eps).exp().sub(pt64(1)).add(q) // e^-eps - 1 + q
	if !(arg.lo > 0) {
		return min(1, max(0, w.hi)) // near the cutoff: w Phi(u) <= w
	}
	u := arg.div(q).log().div(mu).add(mu.scale(0.5))
	a := phiFi(u)
	b := phiFi(u.sub(mu))
	v := w.hi*a.hi - dn(alpha.lo*q.lo*b.lo)
	return min(1, max(0, up(v)))
}
