// Package bounds holds the closed-form bounds on the amplified Rényi level
// Post_{alpha,k}(eps) of Imola and Chaudhuri, "Privacy Amplification via
// Bernoulli Sampling" (ICML 2021): the binary Rényi divergence r_alpha, its
// inverse, the lower bound of Theorem 4 (eqs. 5 and 7), the upper bound
// min(eps, d k r_alpha(c)) (eqs. 2 and 6) and the Theorem 2 bound.
//
// All quantities are in nats. Every function works in log space and returns
// a finite number for every argument in its stated domain; arguments outside
// it are programmer errors and panic (validate user input with package
// check first).
//
// A point is validated once, where it enters: the functions that take a
// check.ValidPoint (UpperAt, LowerAt, Theorem2At, PAt, LogitAt, RenyiAt,
// PairAt) do not check its parameters again, and neither does any function
// of the package internally; the float-argument functions (UpperBound,
// Lower, Theorem2, P, Logit, Renyi, ...) are the checked entry points for
// callers that hold no ValidPoint.
package bounds

import (
	"math"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Renyi returns the binary symmetric Rényi divergence of order alpha
//
//	r_alpha(p) = log( p^alpha (1-p)^(1-alpha) + (1-p)^alpha p^(1-alpha) ) / (alpha-1),
//
// the divergence between Bernoulli(p) and Bernoulli(1-p). It is decreasing
// on (0, 1/2] with r_alpha(1/2) = 0. The relative error is a few ulps for
// every p in (0, 1/2] and alpha > 1, including p within an ulp of 1/2 where
// the direct formula cancels.
//
// Renyi panics unless 0 < p <= 1/2 and alpha > 1 is finite.
func Renyi(alpha, p float64) float64 {
	check.Counts.Checks.Add(1)
	if !(p > 0 && p <= 0.5) {
		panic(badP)
	}
	checkAlpha(alpha)
	return renyi(alpha, p)
}

// RenyiAt returns r_alpha(c) (Renyi) at the point's alpha and c: the
// divergence between the outputs of one coin flip at the two ends of
// [c, 1-c].
func RenyiAt(p check.ValidPoint) float64 {
	mustPoint(p)
	return renyi(p.Alpha(), p.C())
}

// renyi is Renyi without the checks.
func renyi(alpha, p float64) float64 { return renyiLogit(alpha, logspace.LogOdds(p)) }

// renyiLogit returns r_alpha as a function of D = log((1-p)/p) >= 0.
//
// With A = (2 alpha - 1) D/2 and B = D/2 the sum inside the log is
// cosh(A)/cosh(B), and cosh^2 A - cosh^2 B = sinh(A+B) sinh(A-B), so
//
//	(alpha-1) r = log(cosh A) - log(cosh B) = softplus(log X) / 2,
//	X = sinh(alpha D) sinh((alpha-1) D) / cosh^2(D/2),
//
// a form with no cancellation anywhere (log X is needed only to absolute
// accuracy), and no overflow since log X is assembled from logs. Only
// alpha D itself can overflow (alpha near 1e308), so for (alpha-1) D >
// renyiTail the equivalent exact identity
//
//	r = D - ( log1p(e^-D) - log1p(e^-((2 alpha - 1) D)) ) / (alpha-1)
//
// (log cosh y = y - log 2 + log1p(e^(-2y)) for A and B) is used: the
// correction is at most log(2)/renyiTail = 1.1% of D, so it costs no
// accuracy, and it never overflows: r -> D as alpha -> Inf.
func renyiLogit(alpha, D float64) float64 {
	if D == 0 {
		return 0
	}
	if b := alpha - 1; b*D > renyiTail {
		// (2 alpha - 1) D may overflow to +Inf: e^-Inf = 0 is right.
		return D - (math.Log1p(math.Exp(-D))-math.Log1p(math.Exp(-(alpha+b)*D)))/b
	}
	logX := logspace.Sinh(alpha*D) + logspace.Sinh((alpha-1)*D) - 2*logspace.Cosh(D/2)
	return 0.5 * logspace.Softplus(logX) / (alpha - 1)
}

// renyiUlps bounds the relative error of Renyi(alpha, p), in ulps (units
// of 2^-53), with D = log((1-p)/p). In the main branch the result's
// relative error is the absolute error of log X (softplus has
// sigmoid/softplus <= 1), and log X sums three log-sinh/log-cosh terms of
// size up to alpha D, each off by a few ulps of its size and by its
// argument's rounding (alpha D and (alpha-1) D to an ulp, D to 4): so the
// bound grows with alpha D. Measured against the independent checker
// (package verify) 16 flat ulps were not enough at c = 1e-5, alpha - 1 =
// 2.4e-6 (20 ulps below; TestClosedFormCertificate). The tail branch is a
// few ulps of D.
func renyiUlps(alpha, D float64) float64 {
	if (alpha-1)*D > renyiTail {
		return 16
	}
	return 24 + 6*(alpha*D+(alpha-1)*D+D)
}

// P returns the p in (0, 1/2] with r_alpha(p) = eps, the mass of the
// Theorem 4 pair. P(alpha, 0) = 1/2.
//
// The result is the smallest float64 p whose computed r_alpha(p) does not
// exceed eps: on the feasible side for a lower bound, and within an ulp or
// two of the exact root (Renyi's own error) wherever float64 can resolve it.
// Near 1/2 a float p cannot carry r_alpha to full relative precision (eps
// below about 1e-8); Lower therefore works with the logit, see Logit.
//
// P panics unless alpha > 1 is finite and eps >= 0 is finite.
func P(alpha, eps float64) float64 {
	checkOrderEps(alpha, eps)
	return pStar(alpha, eps)
}

// PAt returns P(alpha, eps) at the point's alpha and eps.
func PAt(p check.ValidPoint) float64 {
	mustPoint(p)
	return pStar(p.Alpha(), p.Eps())
}

// PairAt returns the mass p = P(alpha, eps) of the Theorem 4 pair at the
// point and div, an upper bound on the divergences R_alpha(P||Q) =
// R_alpha(Q||P) = r_alpha(p) <= eps of the pair: r_alpha(p) computed, 0 at
// p = 1/2 (eps = 0), and eps itself where p underflows to 0 (eps above
// about 745 + log(2)/(alpha-1)), where the pair meant is the exact one with
// logit LogitAt(p).
func PairAt(p check.ValidPoint) (mass, div float64) {
	mustPoint(p)
	return pair(p.Alpha(), p.Eps())
}

// pair is PairAt at alpha and eps without the checks.
func pair(alpha, eps float64) (mass, div float64) {
	mass = pStar(alpha, eps)
	switch {
	case mass == 0:
		div = eps
	case mass < 0.5:
		div = renyi(alpha, mass)
	}
	return mass, div
}

// pStar is P without the checks.
func pStar(alpha, eps float64) float64 {
	D := logit(alpha, eps)
	p0 := expit(-D)
	if p0 == 0.5 || p0 == 0 {
		return p0
	}
	// p0 is within about (1 + D) * 1e-16 relative of the root; bracket it
	// with margin and bisect on the float64 bits of p, r being decreasing.
	feasible := func(p float64) bool { return renyi(alpha, p) <= eps }
	lo, hi := p0*(1-1e-12), math.Min(p0*(1+1e-12), 0.5)
	if feasible(lo) || !feasible(hi) {
		return p0 // the bracket failed: keep the logit's p
	}
	_, p := floatbits.Bisect(lo, hi, feasible)
	return p
}

// Logit returns D = log((1-p)/p) for p = P(alpha, eps), which stays
// representable where p itself would underflow (eps above about 700).
//
// Logit panics unless alpha > 1 is finite and eps >= 0 is finite.
func Logit(alpha, eps float64) float64 {
	checkOrderEps(alpha, eps)
	return logit(alpha, eps)
}

// LogitAt returns Logit(alpha, eps) at the point's alpha and eps.
func LogitAt(p check.ValidPoint) float64 {
	mustPoint(p)
	return logit(p.Alpha(), p.Eps())
}

// logit is Logit without the checks.
func logit(alpha, eps float64) float64 {
	if eps == 0 {
		return 0
	}
	// Bracket: r(D) >= D - log(2)/(alpha-1) (the large-D asymptote is
	// approached from above), so D <= eps + log(2)/(alpha-1); double until
	// the bracket holds in floating point too.
	hi := eps + math.Ln2/(alpha-1) + 1
	for renyiLogit(alpha, hi) <= eps {
		hi *= 2
	}
	// Narrow the bracket [lo, hi], r(lo) <= eps < r(hi), by regula falsi
	// with the Illinois halving: each step evaluates r once and keeps the
	// bracket verified, so only where it lands depends on the arithmetic.
	lo, flo, fhi := 0.0, -eps, renyiLogit(alpha, hi)-eps
	side := 0
	for range maxFalsi {
		if hi-lo <= falsiWidth*hi {
			break
		}
		D := (lo*fhi - hi*flo) / (fhi - flo)
		if !(D > lo && D < hi) {
			D = lo + (hi-lo)/2
		}
		f := renyiLogit(alpha, D) - eps
		if f > 0 {
			hi, fhi = D, f
			if side == 1 {
				flo /= 2
			}
			side = 1
		} else {
			lo, flo = D, f
			if side == -1 {
				fhi /= 2
			}
			side = -1
		}
	}
	// Bisection on the float bits ends on adjacent floats D < D' with
	// r(D) <= eps < r(D'), r being increasing in D.
	D, _ := floatbits.Bisect(lo, hi, func(D float64) bool { return renyiLogit(alpha, D) > eps })
	return D
}

// renyiTail is the (alpha-1) D above which renyiLogit uses the large-order
// identity.
const renyiTail = 64

// Regula falsi in Logit stops at maxFalsi steps or a bracket of relative
// width falsiWidth; bisection on the float bits finishes in about 20 steps.
const (
	maxFalsi   = 40
	falsiWidth = 1e-10
)

// expit returns 1/(1+e^-z).
func expit(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

const (
	badP     = "bounds: p must be in (0, 1/2]"
	badAlpha = "bounds: alpha must be > 1 and finite"
	badEps   = "bounds: eps must be >= 0 and finite"
	badC     = "bounds: c must be in (0, 1/2)"
	badDK    = "bounds: d and k must be >= 1"
	badZero  = "bounds: the zero check.ValidPoint is not a point (make one with check.NewValidPoint)"
)

// mustPoint panics on the zero ValidPoint, the only invalid one (it checks
// no parameter).
func mustPoint(p check.ValidPoint) {
	if p.IsZero() {
		panic(badZero)
	}
}

func checkAlpha(alpha float64) {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		panic(badAlpha)
	}
}

func checkEps(eps float64) {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		panic(badEps)
	}
}

// checkOrderEps panics unless alpha and eps are in their domains; it is the
// check of the entry points P and Logit (counted by check.Counts.Checks).
func checkOrderEps(alpha, eps float64) {
	check.Counts.Checks.Add(1)
	checkAlpha(alpha)
	checkEps(eps)
}

// checkPoint panics unless the point is in the domain; it is the check of
// the float-argument entry points (counted by check.Counts.Checks).
func checkPoint(d, k int, c, alpha, eps float64) {
	check.Counts.Checks.Add(1)
	if d < 1 || k < 1 {
		panic(badDK)
	}
	if !(c > 0 && c < 0.5) {
		panic(badC)
	}
	checkAlpha(alpha)
	checkEps(eps)
}
