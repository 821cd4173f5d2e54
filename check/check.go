// Package check validates the parameters of a bernamp point, one function
// per parameter in the style of Google's differential-privacy checks: NaN
// and ±Inf are always rejected, and each message names the parameter, its
// value and the rule.
package check

import (
	"fmt"
	"math"
)

// D returns an error unless d >= 1 (the dimension of theta).
func D(d int) error {
	if d < 1 {
		return fmt.Errorf("d is %d, must be >= 1", d)
	}
	return nil
}

// K returns an error unless k >= 1 (the number of Bernoulli samples).
func K(k int) error {
	if k < 1 {
		return fmt.Errorf("k is %d, must be >= 1", k)
	}
	return nil
}

// C returns an error unless c is in the open interval (0, 1/2).
func C(c float64) error {
	if !(c > 0 && c < 0.5) {
		return fmt.Errorf("c is %v, must be in (0, 0.5)", c)
	}
	return nil
}

// Alpha returns an error unless alpha is finite and alpha > 1.
func Alpha(alpha float64) error {
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return fmt.Errorf("alpha is %v, must be > 1 and finite", alpha)
	}
	return nil
}

// Eps returns an error unless eps is finite and eps >= 0.
func Eps(eps float64) error {
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
	if d >= 1 && k >= 1 && d > MaxN/k {
		return fmt.Errorf("d k is %.4g (d = %d, k = %d), must be at most 2^53", float64(d)*float64(k), d, k)
	}
	return nil
}

// Point returns the first error of D, K, C, Alpha and Eps, in that order.
// It does not check N: callers that never form d k accept
// any d and k.
func Point(d, k int, c, alpha, eps float64) error {
	for _, err := range []error{D(d), K(k), C(c), Alpha(alpha), Eps(eps)} {
		if err != nil {
			return err
		}
	}
	return nil
}
