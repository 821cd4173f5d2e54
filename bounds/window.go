package bounds

import (
	"math"

	"github.com/bernamp/bernamp/internal/logspace"
)

// pairDivergence returns R_alpha(B(P), B(Q)) for the antipodal pair with
// logit D over n coin flips, summing only the terms that matter and
// bounding the rest with a proof.
//
// The sum. With rho_j = P_j/Q_j, sum_j C(n,j) Q_j = sum_j C(n,j) P_j = 1
// gives f - 1 = sum_j C(n,j) Q_j h(log rho_j) with h(L) = e^(alpha L) - 1 -
// alpha (e^L - 1) >= 0. Pairing j with n-j (rho_(n-j) = 1/rho_j, and the
// middle term of an even n is 0) folds it onto i = 0..(n-1)/2:
//
//	f - 1 = sum_i b_i Phi(u_i),  b_i = C(n,i) c^i (1-c)^(n-i),  u_i = e^(-lam (n-2i)) < 1,
//	Phi(u) = P2^alpha Q2^(1-alpha) + Q2^alpha P2^(1-alpha) - P2 - Q2
//	       = Q2 expm1((alpha-1) l) (1 - e^(-alpha l)),
//	P2 = p + (1-p) u,  Q2 = (1-p) + p u,  l = log(Q2/P2) = log1p((1-2p)(1-u)/P2) >= 0,
//
// lam = log((1-c)/c). Each factor of the last form of Phi is computed
// without cancellation, so f - 1 keeps full relative accuracy when LB is
// tiny. Phi is convex and decreasing on [0, 1] (a sum of perspectives of
// convex functions, zero at u = 1), Phi(0) = e^((alpha-1) r_alpha(p)) - 1,
// and u_i increases with i. The exponents used below, from the derivative
// of log Phi in log u (with dl/dlog u = -(1-2p) u/(P2 Q2)):
//
//	gamma(u0) = max( u0/(1-u0), (1-2p)(u0/P2(u0)) max(alpha-1, 1/l(u0)) - p/(1-p) )
//	            <= -dlog Phi/dlog u on [u0, 1],
//	Gamma(u0) = (alpha-1+2/l(u0)) (1-2p) (u0/P2(u0)) / (1-p)
//	            >= -dlog Phi/dlog u on (0, u0].
//
// The window. When Phi is flat to 2^-62 over the binomial's bulk m0 +-
// 10 sqrt(n c (1-c)) (m0 its mode; flatness from the tangent at 0, Phi(u) >=
// Phi(0) + Phi'(0) u), f - 1 is at least Phi(0) (1 - 2^-62) times the bulk's
// mass, whose complement is bounded as below, and at most Phi(0): O(1) work,
// and LB = r_alpha(p) = eps to 2^-61. Otherwise the largest term i0 is
// found by bisection on the sign of t_(i+1) - t_i over [0, m0] (t_i
// decreases past m0), and terms are added walking right from i0, then
// left, until what is left on that side is provably at most 2^-61 of the
// running sum. With the ratios of b_i, which decrease with i:
//
//	right of hi: sum_(i>hi) t_i <= t_hi r/(1-r),  r = (b_(hi+1)/b_hi) e^(-2 lam gamma(u_hi)) < 1;
//	left of lo:  sum_(i<lo) t_i <= min( Phi(0) b_lo s/(1-s),  t_lo s'/(1-s') ),
//	             s = b_(lo-1)/b_lo < 1,  s' = s e^(2 lam Gamma(u_lo)) < 1.
//
// In the tests the walk covers about 9 sqrt(n c (1-c)) terms below i0 and
// up to 6 above it (or up to n/2), allocates nothing, and would at worst
// (bounds that never bite) visit all (n+1)/2 terms. For (n+1)/2 <= 64
// every term is summed. b_i comes from logBinomPMF, which keeps n c exact
// (logspace.BinomPMF rounds it, which costs up to 1e-10 at n = 10^12).
//
// Rounding side. Every omitted term is nonnegative and the proved bound on
// the omitted mass (evaluated with a pad for the rounding of its ratios,
// see logGeom) is at most 2^-60 of the sum kept, so the exact windowed
// sum is below the exact f - 1 by at most 2^-60 (9e-19) relative: the
// truncation only lowers LB, which stays a valid lower bound. The returned
// value can exceed the exact LB (for the float64 D that Logit returns) only
// through float64 rounding: of the terms (binomial pmf, exp/log/expm1/log1p,
// a few ulps each, amplified by at most (alpha-1) l in the exponent, which
// the final division by alpha-1 undoes), of the compensated sum and of the
// final log. Measured: within 1.1e-15 of the 60-digit references
// (testdata/ref/lb_large.csv, n up to 10^12) and 4e-14 of the previous O(n)
// sum for n up to 10^4.
//
// Numerics: the walk forms terms in linear space, relative to the largest,
// when D <= 600 and (alpha-1) D <= linearMaxV0 (Phi carried as Phi
// e^-((alpha-1) l(u_i0)), so large alpha D cannot overflow), and in log
// space otherwise; the bisection and the flat test work in log space.
//
// Large orders. In log space no term is formed as log b_i + log Phi(u_i):
// log Phi is about (alpha-1) l, and once alpha D passes about 1e15 its
// rounding (an ulp of 16 or more at (alpha-1) l = 7e16) swamps the
// differences of the log b_i, so the peak landed anywhere, the walk's
// terms overflowed to +Inf and the compensated sum made NaN of them
// (Lower(105, 123, 0.42, 1.785714285714573e13, 4038) was NaN), and past
// alpha D = 1.8e308 log Phi itself overflows. Instead terms are ratios to a
// reference term, log(Phi(u_b)/Phi(u_a)) from l_b - l_a computed directly
// without cancellation (see ratio), and LB = l_ref + (log(f-1) - (alpha-1)
// l_ref)/(alpha-1) never forms (alpha-1) l_ref in a sum (see lb). Then LB is
// finite for every alpha, and LB -> max l over the support as alpha -> Inf.
func pairDivergence(n int, c, alpha, D float64) float64 {
	s := newFoldedSum(n, c, alpha, D)
	ref, logBRef, L := s.logSum()
	return s.lb(ref, logBRef, L)
}

// lb returns LB = log(f)/(alpha-1) given log(f-1) = logBRef + log
// Phi(ref) + L.
func (s *foldedSum) lb(ref point, logBRef, L float64) float64 {
	if math.IsInf(L, -1) {
		return 0
	}
	a := s.alpha
	rest := logBRef + ref.logQ2 + logspace.OneMinusExp(-a*ref.ell) + L
	if ref.v > 1 {
		// log Phi(ref) = v + log Q2 + log(1 - e^-v) + log(1 - e^(-alpha l)).
		rest += logspace.OneMinusExp(-ref.v)
		if x := ref.v + rest; x > 0 {
			return ref.ell + (rest+math.Log1p(math.Exp(-x)))/(a-1)
		}
		return logspace.Softplus(ref.v+rest) / (a - 1)
	}
	return logspace.Softplus(logExpm1(ref.v)+rest) / (a - 1)
}

// Truncation thresholds: each side stops when its proved remainder is at
// most tailFrac of the running sum (two sides: 2^-60 in all); the shortcut
// requires a flatness and a binomial tail of at most flatFrac each.
const (
	tailFrac = 0x1p-61
	flatFrac = 0x1p-62
	// fullSumMax: below this many folded terms, sum them all.
	fullSumMax = 64
	// anchorEvery: in the linear path b_i/b_i0 follows the ratio recurrence
	// and is recomputed from logBinomPMF every anchorEvery steps (the
	// recurrence drifts by at most about 2 ulps a step).
	anchorEvery = 16
	// checkEvery: the walk evaluates its tail bound every checkEvery terms.
	checkEvery = 32
)

// foldedSum holds the constants of f - 1 = sum_(i=0..last) b_i Phi(u_i).
type foldedSum struct {
	n     int
	last  int     // (n-1)/2
	c, q  float64 // c, 1-c
	kap   float64 // c/(1-c)
	lam   float64 // log((1-c)/c)
	alpha float64
	D     float64
	// p in log and linear form, 1-2p = tanh(D/2).
	logp, log1mp, p, omp, tanh, logTanh float64
	logPhi0                             float64 // log Phi(0)
	// linear: the walk forms Phi in linear space, carried as Phi e^-shift
	// (shift = (alpha-1) l at the largest term) so that e^((alpha-1) l)
	// cannot overflow; otherwise in log space.
	linear             bool
	shift, expNegShift float64
}

func newFoldedSum(n int, c, alpha, D float64) foldedSum {
	s := foldedSum{n: n, last: (n - 1) / 2, c: c, q: 1 - c, alpha: alpha, D: D}
	s.kap = c / s.q
	s.lam = logspace.LogOdds(c)
	s.logp, s.log1mp = -logspace.Softplus(D), -logspace.Softplus(-D)
	s.p, s.omp = math.Exp(s.logp), math.Exp(s.log1mp)
	s.tanh = math.Tanh(D / 2)
	s.logTanh = logPos(s.tanh)
	v0 := (alpha - 1) * D
	s.logPhi0 = s.log1mp + logExpm1(v0) + logspace.OneMinusExp(-alpha*D)
	// Linear space needs p >= e^-600 (P2 >= p, z <= e^600) and Phi, about
	// alpha^2 l^2 at small l >= (1-2p)(1-e^-lam), far above underflow; and
	// (alpha-1) D <= linearMaxV0, so that (alpha-1) l - shift, a difference
	// of two rounded products, keeps an absolute error below 1e-7.
	s.linear = D <= 600 && s.tanh*-math.Expm1(-s.lam) > 1e-100 && v0 <= linearMaxV0
	s.expNegShift = 1
	return s
}

// linearMaxV0 is the largest (alpha-1) D of the linear path: beyond, the
// log path, whose term ratios keep full relative accuracy at any order, is
// used (the fuzzed domain had alpha D up to 6e8 on the linear path).
const linearMaxV0 = 0x1p30

// logExpm1 returns log(e^x - 1) for x > 0.
func logExpm1(x float64) float64 {
	if x > 1 {
		return x + logspace.OneMinusExp(-x)
	}
	return logPos(math.Expm1(x))
}

// logPos is math.Log, also right for subnormal x: the amd64 assembly of
// math.Log does not normalize them (golang/go#56600; log(1e-310) comes out
// as -709.08 instead of -713.80). Scaling by 2^54 is exact.
func logPos(x float64) float64 {
	if x > 0 && x < 0x1p-1022 {
		return math.Log(x*0x1p54) - 54*math.Ln2
	}
	return math.Log(x)
}

// point is Phi and the quantities the tail bounds need at u = e^(-lam m).
type point struct {
	lin   bool    // from linPoint: phi and P2 are set; else the log fields
	phi   float64 // Phi(u) e^-shift
	P2    float64 // P2 = p + (1-p) u (linear path)
	m     int     // n - 2i; -1 for u = 0 (log path)
	x     float64 // lam m = -log u, +Inf for u = 0 (log path)
	logP2 float64 // log P2 (log path)
	logQ2 float64 // log Q2 (log path)
	logU  float64 // log u (log path)
	v     float64 // (alpha-1) l (log path)
	u     float64
	ell   float64 // l = log(Q2/P2)
}

// uOverP returns u/P2 at a point.
func (pt point) uOverP() float64 {
	if pt.lin {
		return pt.u / pt.P2
	}
	return math.Exp(pt.logU - pt.logP2)
}

// logPoint returns the log-space point at m = n - 2i >= 1.
func (s *foldedSum) logPoint(m int) point {
	x := s.lam * float64(m)
	logE := logspace.OneMinusExp(-x)
	logP2 := logspace.Add(s.logp, s.log1mp-x)
	logQ2 := logspace.Add(s.log1mp, s.logp-x)
	ell := logspace.Softplus(s.logTanh + logE - logP2)
	return point{m: m, x: x, logP2: logP2, logQ2: logQ2, logU: -x, u: math.Exp(-x), ell: ell, v: (s.alpha - 1) * ell}
}

// zero returns the log-space point at u = 0 (l = D).
func (s *foldedSum) zero() point {
	return point{m: -1, x: math.Inf(1), logP2: s.logp, logQ2: s.log1mp, logU: math.Inf(-1), ell: s.D, v: (s.alpha - 1) * s.D}
}

// dEll returns l_b - l_a for log-space points, without cancellation: from
// Q2_a P2_b - Q2_b P2_a = (1-2p)(u_b - u_a),
//
//	l_b - l_a = -log1p( (1-2p) (u_b - u_a) / (P2_a Q2_b) )   for u_b > u_a,
//
// and the same with a and b swapped, negated, for u_b < u_a. u_b - u_a =
// u_b (1 - e^-(lam (m_a - m_b))) is formed from the exact index gap.
func (s *foldedSum) dEll(a, b point) float64 {
	if a.m == b.m {
		return 0
	}
	sign := -1.0
	if a.m >= 0 && (b.m < 0 || a.m < b.m) { // u_a > u_b
		a, b, sign = b, a, 1
	}
	gap := math.Inf(1)
	if a.m >= 0 {
		gap = s.lam * float64(a.m-b.m)
	}
	z := s.logTanh - b.x + logspace.OneMinusExp(-gap) - a.logP2 - b.logQ2
	return sign * logspace.Softplus(z)
}

// ratio returns log(Phi(u_b)/Phi(u_a)) for log-space points:
//
//	log(Q2_b/Q2_a) + [log expm1(v_b) - log expm1(v_a)] + [log(1 - e^(-alpha l_b)) - log(1 - e^(-alpha l_a))],
//
// v = (alpha-1) l, where for v_a, v_b > 1 the middle bracket is (alpha-1)
// (l_b - l_a) + log(1 - e^-v_b) - log(1 - e^-v_a) with l_b - l_a from dEll:
// the ratio keeps its relative accuracy at any alpha, where the difference
// of (alpha-1) l_b and (alpha-1) l_a would carry an ulp of alpha D.
func (s *foldedSum) ratio(a, b point) float64 {
	if a.m == b.m {
		return 0
	}
	r := b.logQ2 - a.logQ2
	if a.v > 1 && b.v > 1 {
		r += (s.alpha-1)*s.dEll(a, b) + logspace.OneMinusExp(-b.v) - logspace.OneMinusExp(-a.v)
	} else {
		r += logExpm1(b.v) - logExpm1(a.v)
	}
	return r + logspace.OneMinusExp(-s.alpha*b.ell) - logspace.OneMinusExp(-s.alpha*a.ell)
}

// linPoint evaluates Phi e^-shift at m = n - 2i >= 1 in linear space (s.linear
// only); false when e^((alpha-1) l - shift) would leave [e^-700, e^700] or
// the result would come near underflow.
func (s *foldedSum) linPoint(m int) (point, bool) {
	x := s.lam * float64(m)
	var u, e float64
	if x < math.Ln2 {
		e = -math.Expm1(-x)
		u = 1 - e
	} else {
		u = math.Exp(-x)
		e = 1 - u
	}
	P2 := s.p + s.omp*u
	Q2 := s.omp + s.p*u
	z := s.tanh * e / P2 // e^l - 1
	// Log and Exp (assembly) where Log1p and Expm1 gain nothing.
	var ell float64
	if z > 0.5 {
		ell = math.Log(1 + z)
	} else {
		ell = math.Log1p(z)
	}
	v, al := (s.alpha-1)*ell, s.alpha*ell
	if math.Abs(v-s.shift) > 700 {
		return point{}, false
	}
	// e1 = expm1(v) e^-shift and e2 = 1 - e^-(alpha l), without cancellation:
	// for alpha l < 0.7, e2 = 1 - 1/((1+z)(1+expm1(v))) as a fraction of
	// positive terms.
	var e1, e2 float64
	switch {
	case al < 0.7:
		em := math.Expm1(v)
		e1 = em * s.expNegShift
		e2 = (z + em*(1+z)) / ((1 + z) * (1 + em))
	case v > 0.7:
		// e^-(alpha l) = e^-v/(1+z) = e^-shift/(ex (1+z)) <= 1/2.
		ex := math.Exp(v - s.shift)
		e1 = ex - s.expNegShift
		if ex > 0 {
			e2 = 1 - s.expNegShift/(ex*(1+z))
		} else {
			e2 = 1 - math.Exp(-al)
		}
	default:
		e1 = math.Expm1(v) * s.expNegShift
		e2 = 1 - math.Exp(-al)
	}
	phi := Q2 * e1 * e2
	if !(phi >= 0x1p-1000) {
		return point{}, false // near underflow: keep full precision in logs
	}
	return point{lin: true, phi: phi, P2: P2, u: u, ell: ell}, true
}

// logPhi0Over returns log(Phi(0)/Phi(u)) at a point from either path.
func (s *foldedSum) logPhi0Over(pt point) float64 {
	if pt.lin {
		return s.logPhi0 - logPos(pt.phi) - s.shift
	}
	return -s.ratio(s.zero(), pt)
}

func (s *foldedSum) logB(i int) float64 { return logBinomPMF(i, s.n, s.c) }

// logBinomPMF returns log( C(n,x) c^x (1-c)^(n-x) ) for the float64 c and
// the exact 1-c. It is Loader's saddle-point form, as logspace.BinomPMF, but
// with n c and n (1-c) carried as exact double-double sums: there the
// rounding of n c (half an ulp, 3e-5 at n = 10^12) enters through bd0 as a
// relative error (x - n c)/(n c) times it, about 3e-11 a standard deviation
// from the mean at n = 10^12, and the rounding of 1-c as (n-x) ulp(1-c).
// Here the absolute error in the log is a few ulps of the bd0 terms (of order
// (x - n c)^2 / (n c)) and of the Stirling corrections. x or n-x up to 15
// go to logspace.BinomPMF (they only occur at small n or deep in a tail).
func logBinomPMF(x, n int, c float64) float64 {
	if x <= 15 || n-x <= 15 {
		return logspace.BinomPMF(x, n, c, 1-c)
	}
	nf, xf := float64(n), float64(x)
	// n c = ph + pl exactly; n (1-c) = n - ph - pl = qh + ql.
	ph := nf * c
	pl := math.FMA(nf, c, -ph)
	qh, qe := twoSum(nf, -ph)
	ql := qe - pl
	lc := logspace.Stirlerr(n) - logspace.Stirlerr(x) - logspace.Stirlerr(n-x) -
		logspace.Bd0(xf, ph, pl) - logspace.Bd0(nf-xf, qh, ql)
	lf := math.Log(2*math.Pi) + math.Log(xf) + math.Log1p(-xf/nf)
	return lc - 0.5*lf
}

// twoSum returns s + e = a + b exactly with s = fl(a + b) (Knuth).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// logSum returns log(f - 1) as logBRef + log Phi(ref) + L: a reference
// term b_ref Phi(ref) (b = 1 for u = 0) and the log of the sum relative to
// it. L = -Inf when every term is 0.
func (s *foldedSum) logSum() (ref point, logBRef, L float64) {
	if math.IsInf(s.logPhi0, -1) || math.IsNaN(s.logPhi0) {
		return s.zero(), 0, math.Inf(-1) // D = 0 to float64: every term is 0
	}
	if s.last+1 <= fullSumMax {
		ref, logBRef = s.logPoint(s.n), s.logB(0)
		acc := logspace.NewAcc()
		for i := 0; i <= s.last; i++ {
			acc.Add(s.logB(i) - logBRef + s.ratio(ref, s.logPoint(s.n-2*i)))
		}
		return ref, logBRef, acc.Log()
	}
	if v, ok := s.flat(); ok {
		return s.zero(), 0, v
	}
	i0 := s.peak()
	ref, L = s.walk(i0)
	return ref, s.logB(i0), L
}

// mode returns the mode floor((n+1) c) of Binomial(n, c), clamped to [0, n].
func (s *foldedSum) mode() int {
	m := int(math.Floor((float64(s.n) + 1) * s.c))
	return min(max(m, 0), s.n)
}

// binomTails returns bounds on log Pr[X < lo] and log Pr[X > hi] for X ~
// Binomial(n, c), from the geometric series of the pmf's ratios (which
// decrease with the index): -Inf for an empty side, +Inf when the ratio at
// the end is not below 1.
func (s *foldedSum) binomTails(lo, hi int) (logLeft, logRight float64) {
	logLeft, logRight = math.Inf(-1), math.Inf(-1)
	if lo > 0 {
		// b_(lo-1)/b_lo = lo/((n-lo+1) kap)
		q := float64(lo) / (float64(s.n-lo+1) * s.kap)
		logLeft = s.logB(lo) + logGeom(q)
	}
	if hi < s.n {
		r := float64(s.n-hi) * s.kap / float64(hi+1)
		logRight = s.logB(hi) + logGeom(r)
	}
	return logLeft, logRight
}

// logGeom returns log(r/(1-r)) (the sum of r^k, k >= 1) for 0 <= r < 1,
// padded for an error of up to 1e-14 in r (about 45 ulps, more than the
// rounding of the few operations that form r), and +Inf when r is not
// safely below 1.
func logGeom(r float64) float64 {
	if !(r < 1-1e-12) {
		return math.Inf(1)
	}
	return logPos(r) - math.Log1p(-r) + 1e-14/(1-r) + 1e-12
}

// flat tries the O(1) case: Phi flat to flatFrac over the binomial bulk
// [lo, hi] inside [0, last], and the bulk's complement below flatFrac. Then
// Phi(0) (1-delta)(1-T) <= f - 1 <= Phi(0) and the log of the lower end
// relative to Phi(0) is returned.
func (s *foldedSum) flat() (float64, bool) {
	m0 := s.mode()
	sd := math.Sqrt(float64(s.n) * s.c * s.q)
	// |dlog Phi/du| at u = 0 <= (alpha-1+2/D)(1-2p)/(p(1-p)) + p/(1-p) (see
	// pairDivergence), padded against rounding.
	logSlope := logspace.Add(math.Log(s.alpha-1+2/s.D)+s.logTanh-s.logp-s.log1mp, s.logp-s.log1mp) + 1e-12
	for _, z := range []float64{10, 20, 40} {
		w := int(math.Ceil(z * sd))
		lo, hi := max(m0-w, 0), m0+w
		if hi > s.last {
			return 0, false
		}
		// delta <= u_hi |Phi'(0)|/Phi(0).
		logDelta := -s.lam*float64(s.n-2*hi) + logSlope
		if logDelta > math.Log(flatFrac) {
			return 0, false
		}
		l, r := s.binomTails(lo, hi)
		logT := logspace.Add(l, r)
		if logT > math.Log(flatFrac) {
			continue
		}
		return math.Log1p(-math.Exp(logDelta)) + math.Log1p(-math.Exp(logT)), true
	}
	return 0, false
}

// peak returns an index of the largest term: t_i = b_i Phi(u_i) decreases
// past the mode m0, and bisection on the sign of log(t_(i+1)/t_i) finds the
// largest term over [0, m0] when the sequence is unimodal (a local maximum
// otherwise, which only costs a longer walk).
func (s *foldedSum) peak() int {
	lo, hi := 0, min(s.last, s.mode())
	logKap := logPos(s.kap)
	for lo < hi {
		mid := lo + (hi-lo)/2
		up := math.Log(float64(s.n-mid)) - math.Log(float64(mid+1)) + logKap +
			s.ratio(s.logPoint(s.n-2*mid), s.logPoint(s.n-2*mid-2))
		if up > 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// kahan is Neumaier's compensated sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k *kahan) value() float64 { return k.s + k.c }

// walker forms terms relative to the largest, t_i/t_i0.
type walker struct {
	s       *foldedSum
	logB0   float64 // log b_i0
	ref     point   // the log-space point of i0
	invPhi0 float64 // e^shift/Phi(u_i0) (linear path)
	// linear path: b_i/b_i0 by recurrence, anchored every anchorEvery steps.
	beta  float64
	steps int
}

// term returns t_i/t_i0 and the point of i; dir = +1 or -1 is the step from
// the previous index (0: anchor).
func (w *walker) term(i, dir int) (float64, point) {
	s := w.s
	m := s.n - 2*i
	if !s.linear {
		pt := s.logPoint(m)
		return math.Exp(s.logB(i) - w.logB0 + s.ratio(w.ref, pt)), pt
	}
	w.steps++
	switch {
	case dir == 0 || w.steps%anchorEvery == 0:
		w.beta = math.Exp(s.logB(i) - w.logB0)
	case dir > 0: // b_i/b_(i-1) = (n-i+1) kap / i
		w.beta *= float64(s.n-i+1) * s.kap / float64(i)
	default: // b_i/b_(i+1) = (i+1) / ((n-i) kap)
		w.beta *= float64(i+1) / (float64(s.n-i) * s.kap)
	}
	pt, ok := s.linPoint(m)
	if !ok || w.beta > 1e300 || w.beta < 1e-300 {
		// Out of the linear range (far from i0): through logs.
		lp := s.logPoint(m)
		if !ok {
			pt = lp
		}
		return math.Exp(s.logB(i) - w.logB0 + s.ratio(w.ref, lp)), pt
	}
	return w.beta * pt.phi * w.invPhi0, pt
}

// walk sums t_i from i0 outward and returns the log-space point of i0 and
// log(f - 1) - log t_i0.
func (s *foldedSum) walk(i0 int) (point, float64) {
	w := walker{s: s, logB0: s.logB(i0)}
	pt0 := s.logPoint(s.n - 2*i0)
	w.ref = pt0
	if s.linear {
		s.shift = (s.alpha - 1) * pt0.ell
		s.expNegShift = math.Exp(-s.shift)
		if lp, ok := s.linPoint(s.n - 2*i0); ok { // v - shift = 0
			pt0, w.invPhi0 = lp, 1/lp.phi
		} else {
			s.linear = false // Phi(u_i0) near underflow: all in logs
		}
	}
	w.term(i0, 0)
	var sum kahan
	sum.add(1)
	logFrac := math.Log(tailFrac)
	a := s.alpha

	// Right: i0+1, ..., stopping when sum_(i>hi) t_i <= tailFrac sum.
	t, pt := 1.0, pt0
	for hi := i0; hi < s.last; {
		if (hi-i0)%checkEvery == 0 && rightTail(s, hi, w.logT(hi, t), pt, a) <= logFrac+math.Log(sum.value()) {
			break
		}
		hi++
		t, pt = w.term(hi, +1)
		sum.add(t)
	}

	// Left: i0-1, ..., 0.
	w.steps = 0
	w.term(i0, 0)
	t, pt = 1.0, pt0
	for lo := i0; lo > 0; {
		if (i0-lo)%checkEvery == 0 && leftTail(s, lo, w.logT(lo, t), pt, a) <= logFrac+math.Log(sum.value()) {
			break
		}
		lo--
		t, pt = w.term(lo, -1)
		sum.add(t)
	}
	return w.ref, math.Log(sum.value())
}

// logT returns log(t_i/t_i0) given its float64 value t, through logs
// when t underflowed.
func (w *walker) logT(i int, t float64) float64 {
	if t > 0 {
		return logPos(t)
	}
	return w.s.logB(i) - w.logB0 + w.s.ratio(w.ref, w.s.logPoint(w.s.n-2*i))
}

// rightTail returns a bound on log(sum_(i>hi) t_i/t_i0) given logt =
// log(t_hi/t_i0) and the point of hi.
func rightTail(s *foldedSum, hi int, logt float64, pt point, a float64) float64 {
	if math.IsInf(logt, -1) {
		return math.Inf(1) // no bound: walk on
	}
	u := pt.u
	gamma := 0.0
	if u < 1 {
		gamma = u / (1 - u)
	}
	gamma = math.Max(gamma, s.tanh*pt.uOverP()*math.Max(a-1, 1/pt.ell)-s.p/s.omp)
	r := float64(s.n-hi) * s.kap / float64(hi+1) * math.Exp(-2*s.lam*gamma)
	return logt + logGeom(r)
}

// leftTail returns a bound on log(sum_(i<lo) t_i/t_i0) given logt =
// log(t_lo/t_i0) and the point of lo.
func leftTail(s *foldedSum, lo int, logt float64, pt point, a float64) float64 {
	q := float64(lo) / (float64(s.n-lo+1) * s.kap)
	// Phi(0) b_lo q/(1-q) relative to t_i0 is (t_lo/t_i0) (Phi(0)/Phi(u_lo)) q/(1-q).
	byFlat := logt + s.logPhi0Over(pt) + logGeom(q)
	Gamma := (a - 1 + 2/pt.ell) * s.tanh * pt.uOverP() / s.omp
	byTilt := logt + logGeom(q*math.Exp(2*s.lam*Gamma))
	if math.IsNaN(byTilt) {
		return byFlat
	}
	return math.Min(byFlat, byTilt)
}
