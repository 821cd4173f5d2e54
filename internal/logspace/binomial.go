package logspace

import "math"

// BinomPMF returns log( C(n, x) p^x q^(n-x) ), the log-probability that
// Binomial(n, p) equals x, with q = 1-p passed separately so that callers
// holding an accurate 1-p (for p near 1) keep it.
//
// It uses Loader's saddle-point expansion (C. Loader, "Fast and accurate
// computation of binomial probabilities", 2000; also R's dbinom): the
// result has an absolute error of a few ulps of the log-probability's size
// even for n in the millions, where lgamma(n+1) - lgamma(x+1) - ... loses
// about log2(n) bits to cancellation. x outside [0, n] gives -Inf.
func BinomPMF(x, n int, p, q float64) float64 {
	switch {
	case x < 0 || x > n:
		return math.Inf(-1)
	case p == 0:
		if x == 0 {
			return 0
		}
		return math.Inf(-1)
	case q == 0:
		if x == n {
			return 0
		}
		return math.Inf(-1)
	}
	nf := float64(n)
	if x == 0 {
		if p < 0.1 {
			return -bd0(nf, nf*q) - nf*p
		}
		return nf * math.Log(q)
	}
	if x == n {
		if q < 0.1 {
			return -bd0(nf, nf*p) - nf*q
		}
		return nf * math.Log(p)
	}
	xf := float64(x)
	lc := Stirlerr(n) - Stirlerr(x) - Stirlerr(n-x) - bd0(xf, nf*p) - bd0(nf-xf, nf*q)
	lf := math.Log(2*math.Pi) + math.Log(xf) + math.Log1p(-xf/nf)
	return lc - 0.5*lf
}

// sferr holds Stirlerr(n) for n = 0..15, computed with mpmath at 40 digits as
// loggamma(n+1) - (n+1/2) log(n) + n - log(sqrt(2 pi)).
var sferr = [16]float64{
	0, // n = 0: unused, BinomPMF handles x = 0 and x = n apart
	0.08106146679532725821967026,
	0.04134069595540929409382208,
	0.02767792568499833914878929,
	0.02079067210376509311152277,
	0.01664469118982119216319487,
	0.01387612882307074799874573,
	0.01189670994589177009505572,
	0.01041126526197209649747857,
	0.009255462182712732917728637,
	0.008330563433362871256469319,
	0.007573675487951840794972024,
	0.006942840107209529865664153,
	0.006408994188004207068439631,
	0.005951370112758847735624416,
	0.00555473355196280137103869,
}

// Stirlerr returns log(n!) - log( sqrt(2 pi n) (n/e)^n ), the error of
// Stirling's formula, by table for n <= 15 and by its asymptotic series
// (coefficients 1/12, 1/360, 1/1260, 1/1680, 1/1188) above, truncated where
// the next term is below 1e-17 (Loader's break points).
func Stirlerr(n int) float64 {
	const (
		s0 = 1.0 / 12
		s1 = 1.0 / 360
		s2 = 1.0 / 1260
		s3 = 1.0 / 1680
		s4 = 1.0 / 1188
	)
	if n <= 15 {
		return sferr[n]
	}
	nf := float64(n)
	nn := nf * nf
	switch {
	case n > 500:
		return (s0 - s1/nn) / nf
	case n > 80:
		return (s0 - (s1-s2/nn)/nn) / nf
	case n > 35:
		return (s0 - (s1-(s2-s3/nn)/nn)/nn) / nf
	}
	return (s0 - (s1-(s2-(s3-s4/nn)/nn)/nn)/nn) / nf
}

// bd0 returns the deviance term x log(x/np) + np - x >= 0 without the
// cancellation of the direct formula when x is close to np.
func bd0(x, np float64) float64 { return Bd0(x, np, 0) }

// Bd0 returns the deviance x log(x/M) + M - x >= 0 for M = mh + ml given as
// a double-double (|ml| <= ulp(mh); ml = 0 for a plain float), by Loader's
// series in v = (x-M)/(x+M) near M, where x - mh is exact (Sterbenz) and ml
// is then subtracted; the direct formula elsewhere.
func Bd0(x, mh, ml float64) float64 {
	d := (x - mh) - ml // x - M
	if math.Abs(d) < 0.1*(x+mh) {
		v := d / ((x + mh) + ml)
		s := d * v
		if math.Abs(s) < math.SmallestNonzeroFloat64 {
			return s
		}
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	return x*math.Log(x/(mh+ml)) - d
}
