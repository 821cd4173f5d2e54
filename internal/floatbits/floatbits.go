// Package floatbits bisects on the bit patterns of float64 values, which
// are ordered like the values for nonnegative floats: a bisection ends on
// two adjacent floats in at most 64 steps, whatever the scale.
package floatbits

import "math"

// Bisect returns adjacent floats a < b in [lo, hi] with pred(a) false and
// pred(b) true, for a predicate that is false at lo, true at hi and
// switches once in between. It panics unless 0 <= lo < hi.
func Bisect(lo, hi float64, pred func(float64) bool) (a, b float64) {
	if !(lo >= 0 && lo < hi) {
		panic("floatbits: need 0 <= lo < hi")
	}
	l, h := math.Float64bits(lo), math.Float64bits(hi)
	for h-l > 1 {
		mid := l + (h-l)/2
		if pred(math.Float64frombits(mid)) {
			h = mid
		} else {
			l = mid
		}
	}
	return math.Float64frombits(l), math.Float64frombits(h)
}

// Up returns x moved n floats toward +Inf: an upper bound on a value
// computed to within n ulps.
func Up(x float64, n int) float64 {
	for range n {
		x = math.Nextafter(x, math.Inf(1))
	}
	return x
}

// Slack of Leq: the rounding two bounds computed by different routes may
// carry (a cross-check between them is not a test of their last bits).
const (
	LeqRel = 1e-12
	LeqAbs = 1e-15
)

// Leq reports whether a <= b within LeqRel relative plus LeqAbs: the
// comparison of the cross-checks, where a lower bound above an upper bound
// by more than rounding is a bug.
func Leq(a, b float64) bool {
	return a <= b+LeqRel*math.Max(math.Abs(a), math.Abs(b))+LeqAbs
}
