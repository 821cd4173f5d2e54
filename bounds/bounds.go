package bounds

import (
	"math"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Upper is the closed-form upper bound of eqs. 2 and 6,
//
//	Post_{alpha,k}(eps) <= min(eps, d k r_alpha(c)),
//
// with both parts kept: PostProcessing is eps (the data-processing
// inequality) and Asymptote is d k r_alpha(c) (additivity over the d k
// independent coin flips). Both are rounded up, so each is at or above its
// exact value and Value is a valid upper bound on Post.
type Upper struct {
	PostProcessing float64 // eps, in nats
	Asymptote      float64 // d k r_alpha(c), in nats, rounded up
	AsymptoteLower float64 // d k r_alpha(c), in nats, rounded down (a lower bound, not part of Value)
}

// Value returns min(PostProcessing, Asymptote).
func (u Upper) Value() float64 { return math.Min(u.PostProcessing, u.Asymptote) }

// UpperBound returns the closed-form upper bound for the point (d, k, c,
// alpha, eps). It panics outside d, k >= 1, 0 < c < 1/2, alpha > 1 finite,
// eps >= 0 finite.
func UpperBound(d, k int, c, alpha, eps float64) Upper {
	checkPoint(d, k, c, alpha, eps)
	return upperBound(d, k, c, alpha, eps)
}

// UpperAt returns UpperBound at the point p.
func UpperAt(p check.ValidPoint) Upper {
	mustPoint(p)
	return upperBound(p.D(), p.K(), p.C(), p.Alpha(), p.Eps())
}

// upperBound is UpperBound without the checks.
func upperBound(d, k int, c, alpha, eps float64) Upper {
	// Renyi's error grows with alpha D (renyiUlps); the products add two
	// roundings. Rounding by that many ulps keeps the asymptote above
	// (AsymptoteLower below) its exact value.
	a := float64(d) * float64(k) * renyi(alpha, c)
	ulps := (renyiUlps(alpha, logspace.LogOdds(c)) + 4) * 0x1p-53
	return Upper{PostProcessing: eps, Asymptote: floatbits.Up(a*(1+ulps), 1),
		AsymptoteLower: max(0, -floatbits.Up(-a*(1-ulps), 1))}
}

// Lower returns the lower bound of Theorem 4 (eqs. 5 and 7): the amplified
// divergence R_alpha(B_k(P), B_k(Q)) of the pair
//
//	P = p 1[0^d] + (1-p) 1[1^d],  Q = (1-p) 1[0^d] + p 1[1^d],  r_alpha(p) = eps,
//
// which with n = d k and A_j = c^j (1-c)^(n-j), B_j = c^(n-j) (1-c)^j is
//
//	LB = log( sum_{j=0..n} C(n,j) P_j^alpha Q_j^(1-alpha) ) / (alpha-1),
//	P_j = p A_j + (1-p) B_j,  Q_j = (1-p) A_j + p B_j.
//
// LB <= Post_{alpha,k}(eps) because the pair is feasible (p is P(alpha,
// eps), on the feasible side). The paper conjectures equality. Lower(.., 0)
// = 0. The relative error is about 1e-14 over alpha up to 1000, eps up to
// 50, c down to 1e-6 and n up to 10^4, and at most 1.1e-15 against
// 60-digit references at n = 10^4 to 10^12 (lb_large.csv; the tests allow
// 1e-12). Every order alpha > 1 is in the domain: up to alpha = 1e308 LB
// stays finite and within a few 1e-16 of 60-digit references (bounds.csv
// rows 322 on, alpha from 1e6 to 1e308), and tends to the largest log
// P_j/Q_j over the support as alpha -> Inf. See the tests and
// testdata/ref.
//
// Only the terms that matter are summed and the rest is bounded with a
// proof (see pairDivergence): the truncation only lowers LB, by at most
// 2^-60 relative, so the result exceeds the exact LB by float64 rounding
// alone. Cost, with no allocation: O(1), a few microseconds at any n, when
// the binomial mass sits where the summand is flat (then LB = eps to
// 2^-61; e.g. c = 0.4, alpha = 5, eps = 1 from n = 10^4 on); otherwise one
// term per index in a window of about 10 to 15 sqrt(n c (1-c)) indices (c
// within a few 1/sqrt(n) of 1/2: about 0.1 ms at n = 10^4, 1 ms at 10^6,
// 25 ms at 10^9, 1 s at 10^12). Lower panics outside d, k >= 1, d k <=
// 2^53, 0 < c < 1/2, alpha > 1 finite, eps >= 0 finite.
func Lower(d, k int, c, alpha, eps float64) float64 {
	checkPoint(d, k, c, alpha, eps)
	if d > maxN/k {
		panic(badN)
	}
	return lower(d*k, c, alpha, eps)
}

// LowerAt returns Lower at the point p (d k <= 2^53 by construction).
func LowerAt(p check.ValidPoint) float64 {
	mustPoint(p)
	return lower(p.N(), p.C(), p.Alpha(), p.Eps())
}

// lower is Lower at n = d k without the checks.
func lower(n int, c, alpha, eps float64) float64 {
	if eps == 0 {
		return 0
	}
	return pairDivergence(n, c, alpha, logit(alpha, eps))
}

// maxN is the largest n = d k that Lower accepts: indices stay exact in
// float64.
const (
	maxN = 1 << 53
	badN = "bounds: d k must be at most 2^53"
)

// logH returns log h(L), h(L) = e^(alpha L) - 1 - alpha (e^L - 1) > 0 for
// L != 0, without cancellation:
//   - |alpha L| <= 1: the series sum_{m>=2} (alpha^m - alpha) L^m / m!, whose
//     terms alternate with ratio at most 2/3 for L < 0;
//   - otherwise h = e^L expm1(b L) - b expm1(L), b = alpha-1, where the second
//     term is at most about 0.6 of the first;
//   - alpha L > 700: log h = alpha L + log1p(-(alpha e^(-b L) - b e^(-alpha L))),
//     which cannot overflow.
func logH(L, alpha float64) float64 {
	b := alpha - 1
	switch {
	case math.Abs(alpha*L) <= 1:
		logAlpha := math.Log1p(b)
		var sum float64
		term := 1.0 // L^m / m!
		for m := 1; m < 60; m++ {
			term *= L / float64(m)
			if m < 2 {
				continue
			}
			t := alpha * math.Expm1(float64(m-1)*logAlpha) * term
			if sum+t == sum {
				break
			}
			sum += t
		}
		return math.Log(sum)
	case alpha*L > 700:
		return alpha*L + math.Log1p(-(alpha*math.Exp(-b*L) - b*math.Exp(-alpha*L)))
	}
	return math.Log(math.Exp(L)*math.Expm1(b*L) - b*math.Expm1(L))
}

// Theorem2 returns the lower bound of Theorem 2 for one sample (k = 1): with
// p = P(alpha, eps) and K = exp(-2 (1/2 - c)^2 d), the Theorem 4 pair has
// divergence at least r_alpha(p + K) when p + K <= 1/2, so
//
//	Post_{alpha,1}(eps) >= LB >= r_alpha(p + K),
//
// and Theorem2 returns 0 (the trivial bound) when p + K > 1/2. It is weaker
// than Lower and kept for comparison with the paper. It panics outside d >=
// 1, 0 < c < 1/2, alpha > 1 finite, eps >= 0 finite.
func Theorem2(d int, c, alpha, eps float64) float64 {
	checkPoint(d, 1, c, alpha, eps)
	return theorem2(d, c, alpha, eps)
}

// Theorem2At returns Theorem2 at the point p's d, c, alpha and eps (the
// bound is for one sample: p's k is not used).
func Theorem2At(p check.ValidPoint) float64 {
	mustPoint(p)
	return theorem2(p.D(), p.C(), p.Alpha(), p.Eps())
}

// theorem2 is Theorem2 without the checks.
func theorem2(d int, c, alpha, eps float64) float64 {
	K := math.Exp(-2 * (0.5 - c) * (0.5 - c) * float64(d))
	q := pStar(alpha, eps) + K
	if q > 0.5 {
		return 0
	}
	return renyi(alpha, q)
}
