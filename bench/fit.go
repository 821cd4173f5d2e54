package main

import "math"

// powerFit is the least-squares line through (log x, log y): y ~ a x^b.
type powerFit struct {
	b, a float64 // exponent and prefactor
	r2   float64 // coefficient of determination of the log-log line
	n    int     // points used
}

// fitPower fits log y = log a + b log x by least squares. It returns ok
// false for fewer than 3 points or when all x are equal. Every x and y must
// be > 0.
func fitPower(xs, ys []float64) (f powerFit, ok bool) {
	n := len(xs)
	if n < 3 || len(ys) != n {
		return f, false
	}
	var mx, my float64
	for i := range n {
		mx += math.Log(xs[i])
		my += math.Log(ys[i])
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy, syy float64
	for i := range n {
		dx, dy := math.Log(xs[i])-mx, math.Log(ys[i])-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return f, false
	}
	f.b = sxy / sxx
	f.a = math.Exp(my - f.b*mx)
	f.r2 = 1
	if syy > 0 {
		f.r2 = sxy * sxy / (sxx * syy) // 1 - SSres/SStot for a least-squares line
	}
	f.n = n
	return f, true
}
