package bounds

import (
	"math"

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
}

// Value returns min(PostProcessing, Asymptote).
func (u Upper) Value() float64 { return math.Min(u.PostProcessing, u.Asymptote) }

// UpperBound returns the closed-form upper bound for the point (d, k, c,
// alpha, eps). It panics outside d, k >= 1, 0 < c < 1/2, alpha > 1 finite,
// eps >= 0 finite.
func UpperBound(d, k int, c, alpha, eps float64) Upper {
	checkPoint(d, k, c, alpha, eps)
	// Renyi is accurate to a few ulps; the product adds one rounding. 16
	// ulps up keeps the asymptote above its exact value.
	a := float64(d) * float64(k) * Renyi(alpha, c)
	return Upper{PostProcessing: eps, Asymptote: floatbits.Up(a, 16)}
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
// 50, c down to 1e-6 and n up to 10^4 (see the tests and testdata/ref).
//
// Cost: O(n) transcendental evaluations. Lower panics outside d, k >= 1,
// 0 < c < 1/2, alpha > 1 finite, eps >= 0 finite.
func Lower(d, k int, c, alpha, eps float64) float64 {
	checkPoint(d, k, c, alpha, eps)
	if eps == 0 {
		return 0
	}
	D := Logit(alpha, eps)
	return pairDivergence(d*k, c, alpha, D)
}

// pairDivergence returns R_alpha(B(P), B(Q)) for the antipodal pair with
// logit D over n coin flips.
//
// Writing rho_j = P_j/Q_j, sum_j C(n,j) Q_j = sum_j C(n,j) P_j = 1 gives
//
//	f - 1 = sum_j C(n,j) Q_j h(log rho_j),  h(L) = e^(alpha L) - 1 - alpha (e^L - 1) >= 0,
//
// a sum of nonnegative terms, so f - 1 keeps full relative accuracy when the
// divergence is tiny (eps small or c near 1/2), and its log is assembled in
// log space so nothing overflows when it is huge. C(n,j) A_j and C(n,j) B_j
// are the Binomial(n, c) probabilities of j and n-j, from Loader's method.
func pairDivergence(n int, c, alpha, D float64) float64 {
	logp, log1mp := -logspace.Softplus(D), -logspace.Softplus(-D)
	logTanh := math.Log(math.Tanh(D / 2)) // log(1-2p)
	lam := logspace.LogOdds(c)            // log((1-c)/c) > 0
	q := 1 - c
	lb := make([]float64, n+1) // log Binomial(n, c) pmf
	for j := range lb {
		lb[j] = logspace.BinomPMF(j, n, c, q)
	}
	terms := make([]float64, 0, n+1)
	for j := 0; j <= n; j++ {
		// Work with the mirror index jj >= n/2 where s = (2jj-n) lam >= 0,
		// w = A/B = e^-s <= 1 and rho >= 1; rho_j = 1/rho_jj for j < n/2.
		jj, sign := j, 1.0
		if 2*j < n {
			jj, sign = n-j, -1.0
		}
		s := float64(2*jj-n) * lam
		// Q_jj/B = p + (1-p) w;  P_jj/Q_jj - 1 = (1-2p)(1-w) / (Q_jj/B).
		logDen := logspace.Add(logp, log1mp-s)
		L := logspace.Softplus(logTanh + logspace.OneMinusExp(-s) - logDen)
		logCQ := logspace.Add(log1mp+lb[j], logp+lb[n-j]) // log C(n,j) Q_j
		if L == 0 {
			continue
		}
		terms = append(terms, logCQ+logH(sign*L, alpha))
	}
	return logspace.Softplus(logspace.Sum(terms)) / (alpha - 1)
}

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
	K := math.Exp(-2 * (0.5 - c) * (0.5 - c) * float64(d))
	q := P(alpha, eps) + K
	if q > 0.5 {
		return 0
	}
	return Renyi(alpha, q)
}
