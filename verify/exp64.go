package verify

import (
	"math"
	"math/big"
	"sync"
)

// Float64 exp and log with proved error bounds, for the fast path. Each
// returns a lower or an upper bound of the exact value: the range
// reduction rounds every operation outward (dn or up, fast.go), the
// series are summed in round-to-nearest with their rounding errors and
// remainders bounded a priori (expUp and its kin, below), and the result
// is widened once by that bound. The results are within a few ulp of the exact
// values (TestExpLog64 checks that they hold the series enclosures of
// arith.go and are at most 2^-46 wide, relative).
//
// log 2 = ln2Hi + ln2Lo: ln2Hi = 0x3fe62e42fee00000 has 33 significant
// bits, so k ln2Hi is exact in float64 for |k| < 2^20; ln2Lo (about
// 1.9e-10) is enclosed from the series enclosure of log 2 (arith.go).
const ln2Hi = 6.93147180369123816490e-01

var ln2Lo = func() fi {
	lo, hi := ln2(prec)
	h := new(big.Float).SetFloat64(ln2Hi)
	return fi{floatDown(newDown(prec).Sub(lo, h)), floatUp(newUp(prec).Sub(hi, h))}
}()

// invFact64[i] encloses 1/i! (i! is exact in float64 for i <= 18);
// invOdd64[i] encloses 1/(2i+1).
var invFact64, invOdd64 = func() (f, o [18]fi) {
	fact := 1.0
	for i := range f {
		if i > 0 {
			fact *= float64(i)
		}
		f[i] = pt64(1).div(pt64(fact))
		o[i] = pt64(1).div(pt64(float64(2*i + 1)))
	}
	return
}()

// tableBits: exp reduces its argument with a table of 2^tableBits
// entries, exp2Tab[j] = 2^(j/64) = e^(j log 2 / 64); log with logTab[j] =
// log(0.75 + j/128), j = 0..96. Both are enclosed at 128 bits by the
// series of arith.go and rounded outward, on first use.
const tableBits = 6

type expLogTables struct {
	exp2 [1 << tableBits]fi
	log  [97]fi
}

var tables = sync.OnceValue(func() *expLogTables {
	t := new(expLogTables)
	lo, hi := ln2(prec)
	for j := range t.exp2 {
		f := big.NewFloat(float64(j) / (1 << tableBits)) // exact
		a, b := newDown(prec).Mul(lo, f), newUp(prec).Mul(hi, f)
		t.exp2[j] = fi{floatDown(expBound(a, false)), floatUp(expBound(b, true))}
	}
	for j := range t.log {
		c := big.NewFloat(0.75 + float64(j)/128) // exact
		t.log[j] = fi{floatDown(logBound(c, false)), floatUp(logBound(c, true))}
	}
	return t
})

const (
	expTerms = 7 // e^r = sum_{i<7} r^i/i! + remainder, 0 <= r < 0.011
	logTerms = 4 // atanh z = z sum_{i<4} w^i/(2i+1) + remainder, w = z^2 <= 1e-4
)

// The polynomials are evaluated by Horner's rule in round-to-nearest, and
// the rounding errors are bounded once, a priori, instead of rounding every
// step outward. For a polynomial of degree m with coefficients a_i >= 0 at
// x >= 0 whose products and sums stay normal, the computed value is
// sum a_i x^i (1 + theta_i) with |theta_i| <= gamma_2m = 2m u / (1 - 2m
// u), u = 2^-53 (Higham, Accuracy and Stability of Numerical Algorithms,
// 2nd ed., eq. 5.3: term i carries at most 2m rounding factors 1 + delta,
// |delta| <= u): all terms being >= 0, the computed value is within
// gamma_2m of the exact one, relative. One more product (by the table
// value, or by z) adds a factor 1 + delta. The remainders of the series
// are below 5e-18 of the sum (which is >= 1), and are folded into the
// same factor: the result times expUp (or logUp) is rounded up, times
// expDn (logDn) rounded down.
const (
	// expUp >= (1 + 4.2e-18) / ((1 - gamma_12) (1 - u)) = 1 + 1.45e-15
	// and expDn <= 1 / ((1 + gamma_12) (1 + u)) = 1 - 1.44e-15
	// (gamma_12 = 1.3323e-15); both are exact in float64.
	expUp = 1 + 0x1p-48
	expDn = 1 - 0x1p-48
	// atanhUp >= (1 + 1.2e-17) / ((1 - gamma_6) (1 - u)) = 1 + 7.9e-16
	// and atanhDn <= 1 / ((1 + gamma_6) (1 + u)) (gamma_6 = 6.662e-16).
	atanhUp = 1 + 0x1p-49
	atanhDn = 1 - 0x1p-49
)

// widen returns x times k, rounded to the side of k (k > 1 up, k < 1
// down), or x itself under testNoWiden.
func widen(x, k float64) float64 {
	if testNoWiden {
		return x
	}
	if k > 1 {
		return up(x * k)
	}
	return dn(x * k)
}

// expPoly returns the Taylor sum of e^r's first 7 terms with the upper
// (upward) or lower ends of the coefficients by Horner's rule in
// round-to-nearest, for r in [0, 0.011]: within gamma_12 of the exact sum,
// relative (all terms >= 0). For r < 2^-60 it returns 1: then 1 <= e^r
// <= 1 + 2^-59, within the 4.2e-18 that expUp allows for the remainder.
// The Lagrange remainder e^xi r^7/7! (0 <= xi <= r) is at most 1.0625
// 0.011^7/7! < 4.2e-18 (e^0.011 < 1.0625), below 4.2e-18 of the sum;
// the truncated sum is a lower bound (all terms >= 0).
func expPoly(r float64, upward bool) float64 {
	if r < 0x1p-60 {
		return 1
	}
	c := &invFact64Lo
	if upward {
		c = &invFact64Hi
	}
	p := c[expTerms-1]
	for i := expTerms - 2; i >= 0; i-- {
		p = p*r + c[i]
	}
	return p
}

// invFact64Lo and invFact64Hi are the ends of invFact64.
var invFact64Lo, invFact64Hi = func() (lo, hi [len(invFact64)]float64) {
	for i, f := range invFact64 {
		lo[i], hi[i] = f.lo, f.hi
	}
	return
}()

// expBound64 returns a lower (upward false) or upper bound of e^x. With
// k = floor(64 x / log 2) = 64 q + j (0 <= j < 64), e^x = 2^q 2^(j/64) e^r
// with r = x - k log 2 / 64 in [0, log 2 / 64), enclosed as (x - k ln2Hi/64)
// - k ln2Lo/64 (k ln2Hi/64 is exact for |k| < 2^20; the rest is rounded
// outward); 2^(j/64) from exp2Tab; 2^q scales exactly (the result is
// normal for x in [-700, 709]); e^r by expPoly, widened by expUp or
// expDn with the table's factor. Beyond, the bounds saturate: [0, e^-700]
// below -700, [e^709, +Inf] above 709.
func expBound64(x float64, upward bool) float64 {
	switch {
	case x != x:
		panic(arithError("exp of NaN"))
	case x < -700:
		if !upward {
			return 0
		}
		x = -700
	case x > 709:
		if upward {
			return math.Inf(1)
		}
		x = 709
	}
	const h = ln2Hi / (1 << tableBits) // exact
	lo := fi{ln2Lo.lo / (1 << tableBits), ln2Lo.hi / (1 << tableBits)}
	k := math.Floor(x / (0.6931471805599453 / (1 << tableBits)))
	var rlo, rhi float64
	for range 4 {
		t := x - k*h
		var kl fi // k ln2Lo / 64
		if k >= 0 {
			kl = fi{dn(k * lo.lo), up(k * lo.hi)}
		} else {
			kl = fi{dn(k * lo.hi), up(k * lo.lo)}
		}
		rlo, rhi = dn(dn(t)-kl.hi), up(up(t)-kl.lo)
		switch {
		case rlo < 0:
			k--
			continue
		case rhi > 0.011:
			k++
			continue
		}
		break
	}
	if rlo < 0 || rhi > 0.011 {
		panic(arithError("exp: range reduction failed"))
	}
	ki := int(k)
	q, j := ki>>tableBits, ki&(1<<tableBits-1)
	t := &tables().exp2[j]
	// 2^q is normal for q in [-1010, 1022], and so is the product, which
	// is in [2^q, 2.1 2^q]: the scaling is exact.
	pow2q := math.Float64frombits(uint64(q+1023) << 52)
	if upward {
		return widen(t.hi*expPoly(rhi, true), expUp) * pow2q
	}
	return widen(t.lo*expPoly(rlo, false), expDn) * pow2q
}

// atanhBound returns a lower (upward false) or upper bound of 2 atanh z
// for z = a/(m+c) >= 0 (a >= 0 exact, m+c rounded to the side that moves
// z the wanted way): 2 z S(z^2) with S(w) = sum_{i<4} w^i/(2i+1) by
// Horner's rule in round-to-nearest (within gamma_6 of the exact sum,
// relative; all terms >= 0, and z >= 2^-54 when a > 0, so that nothing
// underflows), z S rounded to nearest, then widened by atanhUp or
// atanhDn; for the upper bound the tail sum_{i>=4} w^i/(2i+1) <= w^4 /
// (9 (1-w)) <= 1.2e-17 for w <= 1e-4 is within atanhUp's allowance.
func atanhBound(a, m, c float64, upward bool) float64 {
	if a == 0 {
		return 0
	}
	if upward {
		z := up(a / dn(m+c))
		w := up(z * z)
		if w > 1e-4 {
			panic(arithError("log: reduction failed"))
		}
		s := invOdd64[logTerms-1].hi
		for i := logTerms - 2; i >= 0; i-- {
			s = s*w + invOdd64[i].hi
		}
		return 2 * widen(z*s, atanhUp)
	}
	z := dn(a / up(m+c))
	w := dn(z * z)
	s := invOdd64[logTerms-1].lo
	for i := logTerms - 2; i >= 0; i-- {
		s = s*w + invOdd64[i].lo
	}
	return 2 * widen(z*s, atanhDn)
}

// logBound64 returns a lower (upward false) or upper bound of log x, x >
// 0: x = m 2^e exactly with m in [0.75, 1.5) (a subnormal x scaled by
// 2^64 first); with c = 0.75 + j/128 the table point nearest m (c = 1
// for m within 1/256 of 1, so that log x keeps its relative precision
// near x = 1), log x = e ln2Hi + e ln2Lo + log c + 2 atanh z, z = (m-c) /
// (m+c), |z| <= 1/384; m - c is exact (Sterbenz: c/2 <= m <= 2c), log c
// from the table, and atanh is odd (a negative z takes the opposite bound
// of atanh |z|). Away from x = 1 the terms do not cancel: |e log 2| >=
// 0.69 > |log m| + 0.28.
func logBound64(x float64, upward bool) float64 {
	switch {
	case !(x > 0):
		panic(arithError("float64 log of a number that is not positive"))
	case x > math.MaxFloat64:
		if upward {
			return math.Inf(1)
		}
		return 709 // log(MaxFloat64) > 709.78
	}
	e := 0
	if x < 0x1p-1022 {
		x *= 0x1p64
		e = -64
	}
	m, ex := math.Frexp(x) // m in [0.5, 1), exact
	e += ex
	if m < 0.75 {
		m, e = 2*m, e-1
	}
	j := int(math.Round((m - 0.75) * 128)) // 0..96
	c := 0.75 + float64(j)/128             // exact
	var lm float64
	if a := m - c; a >= 0 {
		lm = atanhBound(a, m, c, upward)
	} else {
		lm = -atanhBound(-a, m, c, !upward)
	}
	lc := tables().log[j]
	fe := float64(e)
	eh := fe * ln2Hi // exact
	if upward {
		el := up(fe * ln2Lo.hi)
		if e < 0 {
			el = up(fe * ln2Lo.lo)
		}
		return up(up(up(eh+el)+lc.hi) + lm)
	}
	el := dn(fe * ln2Lo.lo)
	if e < 0 {
		el = dn(fe * ln2Lo.hi)
	}
	return dn(dn(dn(eh+el)+lc.lo) + lm)
}

func expLo(x float64) float64 { return expBound64(x, false) }
func expHi(x float64) float64 { return expBound64(x, true) }
func logLo(x float64) float64 { return logBound64(x, false) }
func logHi(x float64) float64 { return logBound64(x, true) }
