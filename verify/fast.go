package verify

import (
	"math"
	"math/big"
)

// The float64 fast path. Every tile is first tried in float64 interval
// arithmetic (fi below, psi64.go); a tile it does not close is re-tried
// with the big.Float enclosures (psi.go), so every accepted tile is proved
// by one of the two.
//
// Outward rounding. The IEEE operations +, -, *, / and sqrt are correctly
// rounded to nearest, so the exact result of one operation on two float64
// numbers lies within one ulp of the rounded result: moving a lower end one
// float64 down (dn) and an upper end one up (up) encloses it. An overflow to
// Inf stays sound (dn(+Inf) is MaxFloat64, below any exact value that
// rounded to +Inf; an upper end +Inf is no bound), and an underflow to 0 is
// covered by up(0), the smallest subnormal. An end that is NaN (Inf - Inf,
// 0 * Inf) panics with an arithError: the bound is dropped, never trusted.
//
// exp and log (exp64.go) are this package's own, with proved error
// bounds (range reduction with log 2 split into an exact high part and an
// enclosed low part, Taylor and atanh series with bounded remainders,
// every operation rounded outward): no assumption about math.Exp or
// math.Log.

// up and dn return the next float64 above and below x (x itself at +Inf
// and -Inf respectively; NaN unchanged).
func up(x float64) float64 {
	b := math.Float64bits(x)
	if testNoWiden || x != x || x > math.MaxFloat64 || b == 1<<63 {
		if b == 1<<63 { // -0
			return math.SmallestNonzeroFloat64
		}
		return x
	}
	// b + 1 above 0 (+0 included: the smallest subnormal), b - 1 below
	// (-Inf included: -MaxFloat64), without a branch on the sign.
	return math.Float64frombits(b + (1 | uint64(int64(b)>>63)))
}

func dn(x float64) float64 { return -up(-x) }

// fi is a closed interval [lo, hi] of reals with float64 ends, the exact
// value inside. Ends are never NaN.
type fi struct{ lo, hi float64 }

// testNoWiden is a test hook: when set, up and dn return x itself, so that
// no operation is widened and exp and log drop their remainders (a
// deliberately broken fast path, which tests must catch).
var testNoWiden bool

func mk(lo, hi float64) fi {
	if lo != lo || hi != hi {
		panic(arithError("NaN in a float64 enclosure"))
	}
	return fi{dn(lo), up(hi)}
}

// mkNN is mk for a nonnegative quantity: the lower end is kept >= 0.
func mkNN(lo, hi float64) fi {
	r := mk(lo, hi)
	if r.lo < 0 {
		r.lo = 0
	}
	return r
}

func pt64(x float64) fi { return fi{x, x} }

func (a fi) add(b fi) fi {
	if a.lo >= 0 && b.lo >= 0 {
		return mkNN(a.lo+b.lo, a.hi+b.hi)
	}
	return mk(a.lo+b.lo, a.hi+b.hi)
}

func (a fi) sub(b fi) fi { return mk(a.lo-b.hi, a.hi-b.lo) }

func (a fi) neg() fi { return fi{-a.hi, -a.lo} }

func (a fi) mul(b fi) fi {
	if a.lo >= 0 && b.lo >= 0 {
		return mkNN(a.lo*b.lo, a.hi*b.hi)
	}
	x1, x2, x3, x4 := a.lo*b.lo, a.lo*b.hi, a.hi*b.lo, a.hi*b.hi
	if x1 != x1 || x2 != x2 || x3 != x3 || x4 != x4 {
		panic(arithError("NaN in a float64 product"))
	}
	return mk(min(x1, x2, x3, x4), max(x1, x2, x3, x4))
}

// div returns a / b for b.lo > 0.
func (a fi) div(b fi) fi {
	if !(b.lo > 0) {
		panic(arithError("float64 division by an interval that is not positive"))
	}
	var lo, hi float64
	if a.lo >= 0 {
		lo = a.lo / b.hi
	} else {
		lo = a.lo / b.lo
	}
	if a.hi >= 0 {
		hi = a.hi / b.lo
	} else {
		hi = a.hi / b.hi
	}
	if a.lo >= 0 {
		return mkNN(lo, hi)
	}
	return mk(lo, hi)
}

func (a fi) sqr() fi {
	l, h := math.Abs(a.lo), math.Abs(a.hi)
	if a.lo < 0 && a.hi > 0 {
		m := max(l, h)
		return mkNN(0, m*m)
	}
	l, h = min(l, h), max(l, h)
	return mkNN(l*l, h*h)
}

func (a fi) hull(b fi) fi { return fi{min(a.lo, b.lo), max(a.hi, b.hi)} }

// scale returns the interval times the exact float64 constant k >= 0.
func (a fi) scale(k float64) fi { return a.mul(pt64(k)) }

func (a fi) exp() fi { return fi{expLo(a.lo), expHi(a.hi)} }

func (a fi) log() fi { return fi{logLo(a.lo), logHi(a.hi)} }

// ipow64 returns {x^n : x in x}, n >= 0.
func ipow64(x fi, n int) fi {
	switch {
	case n == 0:
		return pt64(1)
	case n == 1:
		return x
	case n%2 == 0:
		return ipow64(x, n/2).sqr()
	}
	l, h := pt64(x.lo), pt64(x.hi)
	for range n - 1 {
		l, h = l.mul(pt64(x.lo)), h.mul(pt64(x.hi))
	}
	return fi{l.lo, h.hi}
}

// floatDown and floatUp round a big.Float to float64 down and up.
func floatDown(x *big.Float) float64 {
	f, acc := x.Float64()
	if acc == big.Above {
		f = dn(f)
	}
	return f
}

func floatUp(x *big.Float) float64 {
	f, acc := x.Float64()
	if acc == big.Below {
		f = up(f)
	}
	return f
}

// toFi encloses a big.Float interval in float64.
func toFi(x ival) fi { return fi{floatDown(x.lo), floatUp(x.hi)} }

// ratFi encloses a rational.
func ratFi(r *big.Rat) fi {
	f, exact := r.Float64()
	if exact {
		return fi{f, f}
	}
	return fi{dn(f), up(f)}
}

// ln2Fi encloses log 2: 0.6931471805599453 is the float64 nearest to
// log 2 = 0.693147180559945309417..., and lies below it.
var ln2Fi = fi{0.6931471805599453, up(0.6931471805599453)}

// logBig encloses log x for a big.Float x > 0 of any exponent: x = m 2^e
// with m in [0.5, 1), log x = log m + e log 2.
func logBig(x ival) fi {
	if x.lo.Sign() <= 0 {
		panic(arithError("log of an interval that is not positive"))
	}
	end := func(v *big.Float, upward bool) float64 {
		m := new(big.Float)
		e := v.MantExp(m)
		lm := fi{floatDown(m), floatUp(m)}.log()
		r := lm.add(pt64(float64(e)).mul(ln2Fi))
		if upward {
			return r.hi
		}
		return r.lo
	}
	return fi{end(x.lo, false), end(x.hi, true)}
}
