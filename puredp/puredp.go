// Package puredp computes the exact pure differential privacy (Rényi order
// alpha = inf) of Bernoulli sampling: a mechanism that releases theta in
// [c, 1-c]^d and is eps-DP, followed by k samples of d independent
// Bernoulli(theta_l) coins, is eps'-DP with
//
//	eps' = log( (e^eps rho + 1) / (rho + e^eps) ),   log rho = L = d k log((1-c)/c),
//
// and no smaller eps' holds for every such mechanism. All levels are in
// nats. The formula is symmetric in eps and L, increasing and concave in
// each, eps' <= min(eps, L), and it tends to L as eps -> inf (the
// asymptote: the samples alone are L-DP whatever theta is) and to eps as
// L -> inf.
//
// Proof, over all of [c, 1-c]^d (the paper's corner lemma is not needed;
// its proof via Lemma 2 holds only for k = 1). Let P, Q be the laws of
// theta on two neighbouring inputs, e = e^eps > 1, P <= e Q and Q <= e P.
// Then T = (e P - Q)/(e-1) and S = (e Q - P)/(e-1) are probability
// measures and P = (e T + S)/(1+e), Q = (T + e S)/(1+e). Fix an output b
// of the k samples (its sufficient statistic: the count vector m, m_l
// ones on coordinate l) and let g(theta) = Pr[b | theta] > 0. With A =
// E_T g and B = E_S g,
//
//	Pr_P[b] / Pr_Q[b] = (e A + B) / (A + e B),
//
// which increases with A/B <= rho_b = sup g / inf g over [c, 1-c]^d. Per
// coordinate, g_l(theta)/g_l(theta') = (theta/theta')^m_l
// ((1-theta)/(1-theta'))^(k-m_l) <= ((1-c)/c)^k, with equality for m_l in
// {0, k} and theta, theta' the two corners, so rho_b <= rho =
// ((1-c)/c)^(d k) and the ratio is at most (e rho + 1)/(rho + e). The
// bound is attained: P = (e/(1+e)) 1[0^d] + (1/(1+e)) 1[1^d] (theta = c
// on every coordinate, or 1-c on every coordinate), Q its mirror, at the
// output "no coin shows 1". The test data (testdata/puredp) check the
// formula against exact rational linear programs over grids of theta that
// include interior points.
//
// Amplify evaluates the closed form; LP solves the same maximum as linear
// programs after the Charnes-Cooper transform (the check used by the tests
// and by the CLI's --method lp).
package puredp

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Level is an amplified pure-DP level in nats: the float64 value of the
// closed form and an enclosure of the exact value.
type Level struct {
	Eps   float64 // eps' evaluated in float64 (within a few 1e-16 relative of the exact value, see Amplify)
	Lower float64 // a lower bound on the exact eps'
	Upper float64 // an upper bound on the exact eps': use it for a privacy claim
}

// unit is the unit roundoff of float64, 2^-53.
const unit = 0x1p-53

// Amplify returns the exact amplified pure-DP level eps' of an eps-DP
// mechanism on [c, 1-c]^d followed by k Bernoulli samples:
//
//	eps' = log1p( expm1(eps) expm1(L) / (e^eps + e^L) ),   L = d k log((1-c)/c),
//
// the form of the package formula without cancellation (the numerator
// minus the denominator of the ratio is expm1(eps) expm1(L)). eps may be
// +Inf (no privacy before sampling): eps' is then L, the asymptote.
// eps = 0 gives 0.
//
// Lower and Upper enclose the exact value of the formula at the float64
// inputs: the evaluation is assembled in log space (no overflow for any
// d, k and eps) and its rounding error is bounded term by term (see
// level); the tests check the enclosure against 30-digit mpmath values.
//
// Amplify returns an error unless d >= 1, k >= 1, 0 < c < 1/2 and
// eps >= 0 (possibly +Inf).
func Amplify(d, k int, c, eps float64) (Level, error) {
	if err := validate(d, k, c, eps); err != nil {
		return Level{}, fmt.Errorf("puredp.Amplify: %w", err)
	}
	// L carries the relative error of LogOdds (4 ulps) and of the product
	// (1 ulp).
	return amplify(float64(d)*float64(k)*logspace.LogOdds(c), 5*unit, eps), nil
}

// AmplifyRanges is Amplify for theta_l in [lo_l, hi_l] on coordinate l
// (the ranges need not be symmetric): the same formula with
//
//	L = k sum_l max( log(hi_l/lo_l), log((1-lo_l)/(1-hi_l)) ).
//
// The proof of the package comment carries over: per coordinate the ratio
// g_l(theta)/g_l(theta') = (theta/theta')^m_l ((1-theta)/(1-theta'))^(k-m_l)
// is at most max(hi_l/lo_l, (1-lo_l)/(1-hi_l))^k, attained at m_l = k
// (theta = hi_l against lo_l) or m_l = 0 (lo_l against hi_l). eps = +Inf
// gives the asymptote L. Symmetric ranges [c, 1-c] give Amplify's answer.
//
// It returns an error for an empty or invalid list of ranges (0 < lo < hi <
// 1), k < 1 or eps < 0 (or NaN).
func AmplifyRanges(ranges []bounds.Range, k int, eps float64) (Level, error) {
	if len(ranges) == 0 {
		return Level{}, fmt.Errorf("puredp.AmplifyRanges: no ranges")
	}
	if err := bounds.CheckRanges(ranges); err != nil {
		return Level{}, fmt.Errorf("puredp.AmplifyRanges: %w", err)
	}
	if err := check.K(k); err != nil {
		return Level{}, fmt.Errorf("puredp.AmplifyRanges: %w", err)
	}
	if !(eps >= 0) {
		return Level{}, fmt.Errorf("puredp.AmplifyRanges: eps is %v, must be >= 0", eps)
	}
	var L float64
	for _, r := range ranges {
		// log1p of the relative width, with no cancellation when hi is
		// close to lo: each term within 6 ulps relative (rounding of hi -
		// lo, of 1 - hi, of the quotient, and log1p).
		w := r.Hi - r.Lo
		L += math.Max(math.Log1p(w/r.Lo), math.Log1p(w/(1-r.Hi)))
	}
	// A sum of d positive terms adds d ulps, the product by k one more.
	return amplify(float64(k)*L, float64(len(ranges)+7)*unit, eps), nil
}

// amplify returns the Level of eps'(eps, L) for an L known within a
// relative error lRel.
func amplify(L, lRel, eps float64) Level {
	if eps == 0 {
		return Level{} // x = y: no output distinguishes them
	}
	v, rel := level(eps, L)
	// eps' has relative condition at most 1 in L (it is concave in L and 0
	// at L = 0).
	rel += lRel
	// eps' <= eps exactly (post-processing) and eps is exact, so none of
	// the three needs to exceed it.
	lo := math.Max(0, -floatbits.Up(-v*(1-rel), 1))
	return Level{Eps: math.Min(eps, v), Lower: math.Min(eps, lo), Upper: math.Min(eps, floatbits.Up(v*(1+rel), 1))}
}

// Asymptote returns d k log((1-c)/c) rounded up: the level of the samples
// whatever theta is (eps = inf), an upper bound on every amplified level.
// It returns an error unless d >= 1, k >= 1 and 0 < c < 1/2.
func Asymptote(d, k int, c float64) (float64, error) {
	l, err := Amplify(d, k, c, math.Inf(1))
	if err != nil {
		return 0, fmt.Errorf("puredp.Asymptote: %w", err)
	}
	return l.Upper, nil
}

// Witness returns the masses P(0^d) and Q(0^d) of the optimal pair, which
// puts the rest of its mass on 1^d: P(0^d) = e^eps/(1+e^eps) = Q(1^d). It
// is eps-DP exactly (both ratio constraints are tight) and the output "all
// counts 0" attains eps'. eps = +Inf gives (1, 0).
func Witness(eps float64) (p0, q0 float64) {
	// e/(1+e) = 1/(1+e^-eps), computed from the logs to keep q0 accurate.
	return math.Exp(-logspace.Softplus(-eps)), math.Exp(-logspace.Softplus(eps))
}

// level returns eps'(eps, L) and a bound on its relative rounding error,
// for exact inputs eps, L > 0 (either may be +Inf, not both).
//
// With a = min(eps, L), b = max(eps, L):
//
//	eps' = softplus(t),  t = log expm1(a) + log(1 - e^-b) - softplus(a - b),
//
// since log expm1(b) - log(e^a + e^b) = log(1 - e^-b) - softplus(a - b).
// Every piece is a standard log-space primitive, accurate to a few ulps in
// absolute terms of its size, so |error of t| <= 8 u (|log expm1(a)| + a +
// 4) plus the effect of rounding a - b (at most u (a+b) sigmoid(a - b)).
// softplus has derivative sigmoid, so an absolute error dt of t moves eps'
// by a relative sigmoid(t)/softplus(t) dt <= dt (the ratio is below 1 and
// about 1/t for large t: eps' ~ t there); the final rounding of softplus
// adds a few ulps.
func level(eps, L float64) (v, rel float64) {
	a, b := math.Min(eps, L), math.Max(eps, L)
	la := logExpm1(a)
	t := la + logspace.OneMinusExp(-b) - logspace.Softplus(a-b)
	v = logspace.Softplus(t)
	dt := 8 * unit * (math.Abs(la) + a + 6)
	if !math.IsInf(b, 1) {
		dt += unit * (a + b) * math.Exp(-logspace.Softplus(b-a)) // sigmoid(a - b)
	}
	// sigmoid(t)/softplus(t), padded for its own rounding, at most 1.
	cond := math.Min(1, math.Exp(-logspace.Softplus(-t))/v*(1+8*unit))
	return v, dt*cond + 4*unit
}

// logExpm1 returns log(e^x - 1) for x > 0 with a small absolute error: the
// direct form where expm1 is accurate and small, and x + log(1 - e^-x)
// above 1, where it cannot overflow.
func logExpm1(x float64) float64 {
	if x <= 1 {
		return math.Log(math.Expm1(x))
	}
	return x + logspace.OneMinusExp(-x)
}

// validate checks d, k, c and an eps that may be +Inf.
func validate(d, k int, c, eps float64) error {
	for _, err := range []error{check.D(d), check.K(k), check.C(c)} {
		if err != nil {
			return err
		}
	}
	if !(eps >= 0) {
		return fmt.Errorf("eps is %v, must be >= 0", eps)
	}
	return nil
}
