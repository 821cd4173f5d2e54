// Package logspace holds the log-domain primitives the rest of bernamp is
// built on: log-sum-exp, softplus, hyperbolic logs and the binomial
// probability mass function, each accurate to a few units in the last place
// in absolute terms of the logarithm, over the whole float64 range.
package logspace

import "math"

// Ln2 is log(2).
const Ln2 = math.Ln2

// Softplus returns log(1 + e^z) without overflow or loss of relative
// accuracy for very negative z. Softplus(-Inf) = 0.
func Softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

// Add returns log(e^a + e^b).
func Add(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	if math.IsInf(a, 1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// Sum returns log(sum_i e^{s_i}), -Inf for an empty slice. It is
// gonum's floats.LogSumExp with an early return on -Inf maxima, so that a
// slice of -Inf gives -Inf rather than NaN.
func Sum(s []float64) float64 {
	m := math.Inf(-1)
	for _, v := range s {
		if v > m {
			m = v
		}
	}
	if math.IsInf(m, 0) {
		return m
	}
	var t float64
	for _, v := range s {
		t += math.Exp(v - m)
	}
	return m + math.Log(t)
}

// Sinh returns log(sinh(y)) for y >= 0 (-Inf at 0).
func Sinh(y float64) float64 {
	if y < 20 {
		return math.Log(math.Sinh(y))
	}
	return y - Ln2 + math.Log1p(-math.Exp(-2*y))
}

// Cosh returns log(cosh(y)) for y >= 0, accurate in absolute terms
// (0.5*log1p(sinh^2) avoids the rounding of cosh near 1).
func Cosh(y float64) float64 {
	if y < 20 {
		s := math.Sinh(y)
		return 0.5 * math.Log1p(s*s)
	}
	return y - Ln2 + math.Log1p(math.Exp(-2*y))
}

// OneMinusExp returns log(1 - e^x) for x < 0, choosing the form that keeps
// relative accuracy (Mächler, "Accurately computing log(1 - exp(-|a|))").
func OneMinusExp(x float64) float64 {
	if x > -Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

// Acc accumulates log(sum_i e^{x_i}) in one pass, rescaling when a larger
// term arrives. The zero Acc is not ready: start from NewAcc.
type Acc struct{ top, sum float64 }

// NewAcc returns an empty accumulator (Log() = -Inf).
func NewAcc() Acc { return Acc{top: math.Inf(-1)} }

// Add adds e^x to the sum.
func (a *Acc) Add(x float64) {
	switch {
	case math.IsInf(a.top, 1):
	case x <= a.top:
		a.sum += math.Exp(x - a.top)
	case math.IsInf(x, 1):
		a.top, a.sum = x, 1
	default:
		a.sum = a.sum*math.Exp(a.top-x) + 1
		a.top = x
	}
}

// Log returns log of the sum so far.
func (a *Acc) Log() float64 {
	if math.IsInf(a.top, 0) {
		return a.top
	}
	return a.top + math.Log(a.sum)
}

// LogOdds returns log((1-p)/p) > 0 for p in (0, 1/2), accurately near 1/2
// where 1-2p is exact (Sterbenz) and Log1p keeps the small result: the
// relative error is at most 4 ulps.
func LogOdds(p float64) float64 {
	if p > 0.25 {
		return math.Log1p((1 - 2*p) / p)
	}
	return math.Log1p(-p) - math.Log(p)
}
