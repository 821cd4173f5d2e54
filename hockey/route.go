package hockey

import (
	"math"
)

// Gaussian returns an upper bound on the delta at which the Gaussian
// mechanism with L2 sensitivity 1 and noise sigma is (eps, delta)-DP, its
// exact privacy profile (Balle and Wang, "Improving the Gaussian
// mechanism", ICML 2018, Theorem 8):
//
//	delta(eps) = Phi(1/(2 sigma) - eps sigma) - e^eps Phi(-1/(2 sigma) - eps sigma),
//
// Phi the standard normal cdf, evaluated as erfc(-x/sqrt 2)/2. Erfc(z)
// for large z is about exp(-z^2)/z, so the rounding of z^2 inside it costs
// about z^2 ulps of relative error (measured: 36 ulps at z = 11); each term
// is padded by (32 + 4 z^2) ulps, the difference is rounded up and capped
// at 1. The cancellation loses relative accuracy where delta is far below
// the terms (large eps sigma): 1.5e-11 relative at sigma = eps = 4, where
// delta is 7e-59. It panics unless sigma > 0 and eps >= 0 are finite.
func Gaussian(sigma, eps float64) float64 {
	if !(sigma > 0) || math.IsInf(sigma, 1) || !(eps >= 0) || math.IsInf(eps, 1) {
		panic("hockey: Gaussian: sigma or eps outside its domain")
	}
	// phi returns Phi(x) and its error bound.
	phi := func(x float64) (float64, float64) {
		z := -x / math.Sqrt2
		v := math.Erfc(z) / 2
		return v, ulp * (32 + 4*z*z) * v
	}
	a, ea := phi(1/(2*sigma) - eps*sigma)
	b, eb := phi(-1/(2*sigma) - eps*sigma)
	e := math.Exp(eps)
	b, eb = e*b, e*eb+4*ulp*e*b
	if math.IsInf(b, 1) || math.IsNaN(b) {
		return 1 // eps beyond 700: give the trivial bound rather than guess
	}
	d := a - b + ea + eb + 4*ulp*(a+b) + 0x1p-1000
	return math.Min(1, math.Nextafter(math.Max(d, 0), math.Inf(1)))
}
