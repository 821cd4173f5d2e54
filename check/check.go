// Package check validates the parameters of a bernamp point, one function
// per parameter in the style of Google's differential-privacy checks: NaN
// and ±Inf are always rejected, and each message names the parameter, its
// value and the rule.
//
// A point is validated once, where it enters: NewValidPoint returns a
// ValidPoint, valid by construction, which the layers below (packages
// bounds, solver and the bernamp engine) take without checking it again.
package check

import (
	"fmt"
	"math"
)

// D returns an error unless d >= 1 (the dimension of theta).
func D(d int) error {
	Counts.Checks.Add(1)
	return checkD(d)
}

func checkD(d int) error {
	if d < 1 {
		return fmt.Errorf("d is %d, must be >= 1", d)
	}
	return nil
}

// K returns an error unless k >= 1 (the number of Bernoulli samples).
func K(k int) error {
	Counts.Checks.Add(1)
	return checkK(k)
}

func checkK(k int) error {
	if k < 1 {
		return fmt.Errorf("k is %d, must be >= 1", k)
	}
	return nil
}

// C returns an error unless c is in the open interval (0, 1/2).
func C(c float64) error {
	Counts.Checks.Add(1)
	return checkC(c)
}

func checkC(c float64) error {
	if !(c > 0 && c < 0.5) {
		return fmt.Errorf("c is %v, must be in (0, 0.5)", c)
	}
	return nil
}

// Alpha returns an error unless alpha is finite and alpha > 1.
func Alpha(alpha float64) error {
	Counts.Checks.Add(1)
	return checkAlpha(alpha)
}

func checkAlpha(alpha float64) error {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return fmt.Errorf("alpha is %v, must be > 1 and finite", alpha)
	}
	return nil
}

// Eps returns an error unless eps is finite and eps >= 0.
func Eps(eps float64) error {
	Counts.Checks.Add(1)
	return checkEps(eps)
}

func checkEps(eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("eps is %v, must be >= 0 and finite", eps)
	}
	return nil
}

// MaxN is the largest number n = d k of coin flips: indices stay exact in
// float64 (the closed forms of package bounds accept no more).
const MaxN = 1 << 53

// N returns an error unless d k <= MaxN, for d, k >= 1 (no overflow).
func N(d, k int) error {
	Counts.Checks.Add(1)
	return checkN(d, k)
}

func checkN(d, k int) error {
	if d >= 1 && k >= 1 && d > MaxN/k {
		return fmt.Errorf("d k is %.4g (d = %d, k = %d), must be at most 2^53", float64(d)*float64(k), d, k)
	}
	return nil
}

// Point returns the first error of D, K, C, Alpha and Eps, in that order.
// It does not check N: callers that never form d k accept
// any d and k. A caller that passes the point on should build a
// ValidPoint instead (NewValidPoint), so that nothing below checks it again.
func Point(d, k int, c, alpha, eps float64) error {
	Counts.Checks.Add(1)
	return checkPoint(d, k, c, alpha, eps)
}

func checkPoint(d, k int, c, alpha, eps float64) error {
	for _, err := range []error{checkD(d), checkK(k), checkC(c), checkAlpha(alpha), checkEps(eps)} {
		if err != nil {
			return err
		}
	}
	return nil
}

// ValidPoint is a point (d, k, c, alpha, eps) in the domain of the paper's
// program: d, k >= 1, d k <= MaxN, 0 < c < 1/2, alpha > 1 finite, eps >= 0
// finite. Only NewValidPoint makes one, so a ValidPoint other than the zero
// value is valid by construction, and functions that take one do not check
// its parameters again. The zero ValidPoint is not a point (IsZero); a
// function given it panics (a programmer error).
type ValidPoint struct {
	d, k          int
	c, alpha, eps float64
}

// NewValidPoint returns the point (d, k, c, alpha, eps), or the first error
// of D, K, C, Alpha, Eps and N, in that order (the messages of those
// functions).
func NewValidPoint(d, k int, c, alpha, eps float64) (ValidPoint, error) {
	Counts.Points.Add(1)
	if err := checkPoint(d, k, c, alpha, eps); err != nil {
		return ValidPoint{}, err
	}
	if err := checkN(d, k); err != nil {
		return ValidPoint{}, err
	}
	return ValidPoint{d, k, c, alpha, eps}, nil
}

// D returns the dimension d of theta, >= 1.
func (p ValidPoint) D() int { return p.d }

// K returns the number k of Bernoulli samples, >= 1.
func (p ValidPoint) K() int { return p.k }

// N returns n = d k, the number of coin flips, at most MaxN (exact).
func (p ValidPoint) N() int { return p.d * p.k }

// C returns the range constant c, in (0, 1/2).
func (p ValidPoint) C() float64 { return p.c }

// Alpha returns the Rényi order alpha, > 1 and finite.
func (p ValidPoint) Alpha() float64 { return p.alpha }

// Eps returns the RDP level eps at order alpha, in nats, >= 0 and finite.
func (p ValidPoint) Eps() float64 { return p.eps }

// IsZero reports whether p is the zero ValidPoint, which NewValidPoint
// never returns.
func (p ValidPoint) IsZero() bool { return p.d == 0 }
