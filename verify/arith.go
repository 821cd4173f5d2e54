package verify

import (
	"math/big"
	"sync"
)

// prec is the working precision in bits of every enclosure: 2^-128 is
// about 3e-39, far below the slacks of the certificates (1e-9 and more
// relative to terms of order 1).
const prec = 128

// maxExpArg bounds the arguments |x| that exp evaluates; beyond it the
// bounds saturate (0 or +Inf below and above), which stays rigorous.
const maxExpArg = 1 << 30

// arithError is the panic of an operation outside its domain (a log or a
// division whose argument's enclosure reaches 0), as at logits so large
// that 1/(1+e^-s) underflows to an enclosure with 0: the bound that ran
// into it is dropped (it never accepts).
type arithError string

func (e arithError) Error() string { return "verify: " + string(e) }

// ival is a closed interval [lo, hi] of reals with big.Float ends: the
// true value is inside. Ends are never NaN; they may be infinite only where
// said. Operations allocate new ends (no aliasing).
type ival struct{ lo, hi *big.Float }

func newDown(p uint) *big.Float {
	return new(big.Float).SetPrec(p).SetMode(big.ToNegativeInf)
}

func newUp(p uint) *big.Float {
	return new(big.Float).SetPrec(p).SetMode(big.ToPositiveInf)
}

// ratIval encloses the rational r.
func ratIval(r *big.Rat) ival {
	return ival{newDown(prec).SetRat(r), newUp(prec).SetRat(r)}
}

// intIval encloses the integer n.
func intIval(n *big.Int) ival {
	return ival{newDown(prec).SetInt(n), newUp(prec).SetInt(n)}
}

// pointIval is [x, x] (x exact).
func pointIval(x *big.Float) ival {
	return ival{new(big.Float).Set(x), new(big.Float).Set(x)}
}

func constIval(x int64) ival {
	return pointIval(new(big.Float).SetPrec(prec).SetInt64(x))
}

func (a ival) add(b ival) ival {
	return ival{addR(a.lo, b.lo, false), addR(a.hi, b.hi, true)}
}

func (a ival) sub(b ival) ival {
	return ival{subR(a.lo, b.hi, false), subR(a.hi, b.lo, true)}
}

func (a ival) neg() ival {
	return ival{new(big.Float).Neg(a.hi), new(big.Float).Neg(a.lo)}
}

func fmin(x, y *big.Float) *big.Float {
	if x.Cmp(y) <= 0 {
		return x
	}
	return y
}

func fmax(x, y *big.Float) *big.Float {
	if x.Cmp(y) >= 0 {
		return x
	}
	return y
}

// mul returns the product; ends of either factor may be any sign.
func (a ival) mul(b ival) ival {
	if a.lo.Sign() >= 0 && b.lo.Sign() >= 0 {
		return ival{newDown(prec).Mul(a.lo, b.lo), newUp(prec).Mul(a.hi, b.hi)}
	}
	xs := [4][2]*big.Float{{a.lo, b.lo}, {a.lo, b.hi}, {a.hi, b.lo}, {a.hi, b.hi}}
	var lo, hi *big.Float
	for i, x := range xs {
		l, h := newDown(prec).Mul(x[0], x[1]), newUp(prec).Mul(x[0], x[1])
		if i == 0 {
			lo, hi = l, h
			continue
		}
		lo, hi = fmin(lo, l), fmax(hi, h)
	}
	return ival{lo, hi}
}

// div returns a / b for b > 0 (b.lo > 0: the caller's duty).
func (a ival) div(b ival) ival {
	if b.lo.Sign() <= 0 {
		panic(arithError("division by an interval that is not positive"))
	}
	var lo, hi *big.Float
	if a.lo.Sign() >= 0 {
		lo = newDown(prec).Quo(a.lo, b.hi)
	} else {
		lo = newDown(prec).Quo(a.lo, b.lo)
	}
	if a.hi.Sign() >= 0 {
		hi = newUp(prec).Quo(a.hi, b.lo)
	} else {
		hi = newUp(prec).Quo(a.hi, b.hi)
	}
	return ival{lo, hi}
}

// sqr returns {x^2 : x in a}.
func (a ival) sqr() ival {
	l, h := new(big.Float).Abs(a.lo), new(big.Float).Abs(a.hi)
	if a.lo.Sign() < 0 && a.hi.Sign() > 0 {
		return ival{newDown(prec), newUp(prec).Mul(fmax(l, h), fmax(l, h))}
	}
	l, h = fmin(l, h), fmax(l, h)
	return ival{newDown(prec).Mul(l, l), newUp(prec).Mul(h, h)}
}

// hull returns the smallest interval holding a and b.
func (a ival) hull(b ival) ival { return ival{fmin(a.lo, b.lo), fmax(a.hi, b.hi)} }

// exp returns {e^x : x in a} (e^x is increasing).
func (a ival) exp() ival { return ival{expBound(a.lo, false), expBound(a.hi, true)} }

// log returns {log x : x in a}; a.lo > 0.
func (a ival) log() ival {
	if a.lo.Sign() <= 0 {
		panic(arithError("log of an interval that is not positive"))
	}
	return ival{logBound(a.lo, false), logBound(a.hi, true)}
}

// expBound returns a lower (upward false) or upper bound of e^x, x exact,
// rounded to prec. For x >= 0: with y = x 2^-s < 2^-12, the Taylor sum of
// e^y truncated after the first term t_N below 2^-(wp+4) is a lower bound
// (positive terms), and adding t_N makes an upper one (the tail is at most
// t_N y/(N+1) / (1 - y/(N+1)) <= t_N); s squarings give e^x, each rounded
// the same way, at a working precision wp = prec + s + 16 that absorbs the
// doubling of the relative error per squaring. For x < 0, e^x = 1/e^-x
// with the directions swapped.
func expBound(x *big.Float, upward bool) *big.Float {
	mode := big.ToNegativeInf
	if upward {
		mode = big.ToPositiveInf
	}
	out := new(big.Float).SetPrec(prec).SetMode(mode)
	switch {
	case x.IsInf():
		if x.Sign() > 0 {
			return out.SetInf(false)
		}
		return out.SetInt64(0)
	case x.Sign() == 0:
		return out.SetInt64(1)
	case x.Sign() < 0:
		return out.Quo(big.NewFloat(1), expBound(new(big.Float).Neg(x), !upward))
	}
	if x.Cmp(new(big.Float).SetInt64(maxExpArg)) > 0 {
		if upward {
			return out.SetInf(false)
		}
		x = new(big.Float).SetInt64(maxExpArg)
	}
	e := x.MantExp(nil)
	s := max(0, e+12)
	wp := uint(prec + s + 16)
	y := new(big.Float).SetPrec(wp).SetMode(mode).SetMantExp(x, -s) // exact when x's precision <= wp
	sum := new(big.Float).SetPrec(wp).SetMode(mode).SetInt64(1)
	ypow := new(big.Float).SetPrec(wp).SetMode(mode).SetInt64(1)
	term := new(big.Float).SetPrec(wp).SetMode(mode)
	for i := 1; ; i++ {
		ypow.Mul(ypow, y)
		term.Mul(ypow, invFact(i, wp, upward)) // y^i/i!, rounded the same way
		sum.Add(sum, term)
		if term.Sign() == 0 || term.MantExp(nil) < -int(wp)-4 {
			break
		}
	}
	if upward {
		sum.Add(sum, term)
	}
	for range s {
		sum.Mul(sum, sum)
	}
	return out.Set(sum)
}

// ln2 returns an enclosure of log 2 at precision p (cached): sum_k
// 1/(k 2^k), truncated after N terms with the tail below 1/((N+1) 2^N).
var ln2Cache struct {
	sync.Mutex
	m map[uint][2]*big.Float
}

func ln2(p uint) (lo, hi *big.Float) {
	ln2Cache.Lock()
	defer ln2Cache.Unlock()
	if v, ok := ln2Cache.m[p]; ok {
		return v[0], v[1]
	}
	wp := p + 16
	lo, hi = newDown(wp), newUp(wp)
	n := int(wp) + 8
	for k := 1; k <= n; k++ {
		den := new(big.Int).Lsh(big.NewInt(int64(k)), uint(k))
		lo.Add(lo, newDown(wp).Quo(big.NewFloat(1), newUp(wp).SetInt(den)))
		hi.Add(hi, newUp(wp).Quo(big.NewFloat(1), newDown(wp).SetInt(den)))
	}
	tail := new(big.Int).Lsh(big.NewInt(int64(n+1)), uint(n))
	hi.Add(hi, newUp(wp).Quo(big.NewFloat(1), newDown(wp).SetInt(tail)))
	if ln2Cache.m == nil {
		ln2Cache.m = map[uint][2]*big.Float{}
	}
	ln2Cache.m[p] = [2]*big.Float{lo, hi}
	return lo, hi
}

// logTable holds enclosures of log(k/32) for k in 22..46 at a working
// precision (cached per precision), from the series below without the
// table (|z| <= 0.19 there).
var logTable struct {
	sync.Mutex
	m map[uint][47][2]*big.Float
}

func logK32(k int, wp uint) (lo, hi *big.Float) {
	logTable.Lock()
	t, ok := logTable.m[wp]
	logTable.Unlock()
	if !ok {
		for j := 22; j <= 46; j++ {
			x := new(big.Float).SetPrec(wp).SetInt64(int64(j))
			x.SetMantExp(x, -5) // j/32, exact
			t[j] = [2]*big.Float{logSeries(x, false, wp, nil), logSeries(x, true, wp, nil)}
		}
		logTable.Lock()
		if logTable.m == nil {
			logTable.m = map[uint][47][2]*big.Float{}
		}
		logTable.m[wp] = t
		logTable.Unlock()
	}
	return t[k][0], t[k][1]
}

// logBound returns a lower (upward false) or upper bound of log x, x > 0
// exact, rounded to prec (see logSeries).
func logBound(x *big.Float, upward bool) *big.Float {
	mode := big.ToNegativeInf
	if upward {
		mode = big.ToPositiveInf
	}
	out := new(big.Float).SetPrec(prec).SetMode(mode)
	if x.IsInf() {
		if upward {
			return out.SetInf(false)
		}
		return out.SetInt64(maxExpArg)
	}
	if x.Sign() <= 0 {
		panic(arithError("log of a number that is not positive"))
	}
	wp := uint(prec + 24)
	if x.Prec()+8 > wp {
		wp = x.Prec() + 8
	}
	return out.Set(logSeries(x, upward, wp, logK32))
}

// logSeries bounds log x at working precision wp: x = m 2^e with m in
// [0.6875, 1.4375), m = (k/32) r with k = round(32 m) in 22..46 when table
// is given (else k/32 = 1), log x = e log 2 + log(k/32) + 2 atanh(z),
// z = (32 m - k)/(32 m + k) (|z| <= 1/44 with the table, 0.19 without),
// atanh z = sum_i z^(2i+1)/(2i+1), truncated when z^(2N+1) < 2^-(wp+4);
// the tail is at most 2 z^(2N+3) (z^2 < 1/2). Every operation rounds
// toward the side wanted (atanh is odd and increasing).
func logSeries(x *big.Float, upward bool, wp uint, table func(int, uint) (lo, hi *big.Float)) *big.Float {
	mode := big.ToNegativeInf
	if upward {
		mode = big.ToPositiveInf
	}
	m := new(big.Float).SetPrec(wp)
	e := x.MantExp(m) // m in [0.5, 1), exact
	if m.Cmp(big.NewFloat(0.6875)) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	k := int64(32)
	if table != nil {
		f, _ := m.Float64()
		k = int64(f*32 + 0.5)
	}
	m32 := new(big.Float).SetPrec(wp+8).SetMantExp(m, 5)                   // 32 m, exact
	num := new(big.Float).SetPrec(wp+8).Sub(m32, big.NewFloat(float64(k))) // exact
	den := new(big.Float).SetPrec(wp+8).Add(m32, big.NewFloat(float64(k))) // exact
	neg := num.Sign() < 0
	dir := upward != neg // bound atanh(|z|) from above?
	zm := big.ToNegativeInf
	if dir {
		zm = big.ToPositiveInf
	}
	z := new(big.Float).SetPrec(wp).SetMode(zm).Quo(new(big.Float).Abs(num), den)
	z2 := new(big.Float).SetPrec(wp).SetMode(zm).Mul(z, z)
	sum := new(big.Float).SetPrec(wp).SetMode(zm).Set(z)
	pow := new(big.Float).SetPrec(wp).SetMode(zm).Set(z)
	for i := int64(1); z.Sign() != 0; i++ {
		pow.Mul(pow, z2)
		t := new(big.Float).SetPrec(wp).SetMode(zm).Quo(pow, new(big.Float).SetInt64(2*i+1))
		sum.Add(sum, t)
		if pow.MantExp(nil) < -int(wp)-4 {
			if dir {
				tail := new(big.Float).SetPrec(wp).SetMode(zm).Mul(pow, z2)
				sum.Add(sum, tail.SetMantExp(tail, 1))
			}
			break
		}
	}
	sum.SetMantExp(sum, 1) // 2 atanh |z|
	if neg {
		sum.Neg(sum)
	}
	lo, hi := ln2(wp)
	// e log 2 on the wanted side: the larger end of log 2 raises it when e > 0.
	l := lo
	if upward == (e >= 0) {
		l = hi
	}
	r := new(big.Float).SetPrec(wp+64).SetMode(mode).Mul(new(big.Float).SetInt64(int64(e)), l)
	r.Add(r, sum)
	if k != 32 {
		klo, khi := table(int(k), wp)
		if upward {
			r.Add(r, khi)
		} else {
			r.Add(r, klo)
		}
	}
	return r
}

// pow returns {x^a : x in x, a in a} for x > 0, as e^(a log x).
func (x ival) pow(a ival) ival { return x.log().mul(a).exp() }

// invFacts caches bounds of 1/i! per working precision: [lower, upper].
var invFacts struct {
	sync.Mutex
	m map[uint][][2]*big.Float
}

// invFact returns a lower (upward false) or upper bound of 1/i! at
// precision wp, i >= 1.
func invFact(i int, wp uint, upward bool) *big.Float {
	invFacts.Lock()
	defer invFacts.Unlock()
	t := invFacts.m[wp]
	for len(t) <= i {
		n := len(t)
		if n == 0 {
			one := new(big.Float).SetPrec(wp).SetInt64(1)
			t = append(t, [2]*big.Float{one, one})
			continue
		}
		f := new(big.Int).MulRange(1, int64(n))
		t = append(t, [2]*big.Float{
			newDown(wp).Quo(big.NewFloat(1), newUp(wp).SetInt(f)),
			newUp(wp).Quo(big.NewFloat(1), newDown(wp).SetInt(f)),
		})
	}
	if invFacts.m == nil {
		invFacts.m = map[uint][][2]*big.Float{}
	}
	invFacts.m[wp] = t
	if upward {
		return t[i][1]
	}
	return t[i][0]
}

// addR returns a + b rounded up (up) or down to prec. big.Float aligns
// its operands exactly, which at an exponent gap of billions of bits
// (logits of 1e9 and more) costs gigabytes; where the gap exceeds prec + 16
// the smaller operand is replaced by 0 or by a tiny number of its sign
// that is larger in magnitude, whichever keeps the result on the wanted
// side.
func addR(a, b *big.Float, up bool) *big.Float {
	z := newDown(prec)
	if up {
		z = newUp(prec)
	}
	if a.IsInf() || b.IsInf() || a.Sign() == 0 || b.Sign() == 0 {
		return z.Add(a, b)
	}
	ea, eb := a.MantExp(nil), b.MantExp(nil)
	big1, small := a, b
	if eb > ea {
		big1, small, ea, eb = b, a, eb, ea
	}
	if ea-eb <= prec+16 {
		return z.Add(a, b)
	}
	// |small| < 2^eb <= 2^(ea-prec-17): below half an ulp of big1.
	if (small.Sign() > 0) == up {
		t := new(big.Float).SetMantExp(big.NewFloat(float64(small.Sign())), ea-prec-16)
		return z.Add(big1, t) // moved past small, toward the wanted side
	}
	return z.Set(big1) // dropping small moves toward the wanted side
}

// subR returns a - b rounded up (up) or down (see addR).
func subR(a, b *big.Float, up bool) *big.Float {
	return addR(a, new(big.Float).Neg(b), up)
}
