package verify

import (
	"math"
	"math/big"
	"sync"
)

// Float64 exp and log with proved error bounds, for the fast path. Each
// returns a lower or an upper bound of the exact value; every operation is
// followed by dn or up (fast.go), so that each intermediate is a bound on
// the wanted side of the exact intermediate, and the series remainders are
// bounded in closed form. The results are within a few ulp of the exact
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

// expRem bounds e^r/7! for 0 <= r <= 0.011 from above: e^0.011 < 1.0111
// <= 1.0625 (exact in binary).
var expRem = up(1.0625 * invFact64[expTerms].hi)

// expPoly returns a lower (upward false) or upper bound of e^r for r in
// [0, 0.011]: the Taylor sum of its first 7 terms by Horner's rule, every
// step rounded to the wanted side (all terms are >= 0, so a bound of each
// partial result times r >= 0 stays a bound); the Lagrange remainder
// e^xi r^7/7! (0 <= xi <= r) is at most expRem r^7 (below 4e-18), added for
// the upper bound; the truncated sum is a lower bound.
func expPoly(r float64, upward bool) float64 {
	if upward {
		p := invFact64[expTerms-1].hi
		for i := expTerms - 2; i >= 0; i-- {
			p = up(up(p*r) + invFact64[i].hi)
		}
		rn := 1.0
		for range expTerms {
			rn = up(rn * r)
		}
		if testNoWiden {
			return p
		}
		return up(p + up(rn*expRem))
	}
	p := invFact64[expTerms-1].lo
	for i := expTerms - 2; i >= 0; i-- {
		p = dn(dn(p*r) + invFact64[i].lo)
	}
	return p
}

// expBound64 returns a lower (upward false) or upper bound of e^x. With
// k = floor(64 x / log 2) = 64 q + j (0 <= j < 64), e^x = 2^q 2^(j/64) e^r
// with r = x - k log 2 / 64 in [0, log 2 / 64), enclosed as (x - k ln2Hi/64)
// - k ln2Lo/64 (k ln2Hi/64 is exact for |k| < 2^20; the rest is rounded
// outward); 2^(j/64) from exp2Tab; 2^q scales exactly (the result is
// normal for x in [-700, 709]). Beyond, the bounds saturate: [0, e^-700]
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
	if upward {
		return math.Ldexp(up(t.hi*expPoly(rhi, true)), q)
	}
	return math.Ldexp(dn(t.lo*expPoly(rlo, false)), q)
}

// atanhBound returns a lower (upward false) or upper bound of 2 atanh z
// for z = a/(m+c) >= 0 (a >= 0 exact, m+c rounded to the side that moves
// z the wanted way): 2 z S(z^2) with S(w) = sum_{i<4} w^i/(2i+1) by
// Horner's rule (all terms >= 0) and, for the upper bound, the tail
// sum_{i>=4} w^i/(2i+1) <= w^4 / (9 (1-w)) <= 0.12 w^4 for w <= 1e-4.
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
			s = up(up(s*w) + invOdd64[i].hi)
		}
		wn := 1.0
		for range logTerms {
			wn = up(wn * w)
		}
		if !testNoWiden {
			s = up(s + up(0.12*wn))
		}
		return 2 * up(z*s)
	}
	z := dn(a / up(m+c))
	w := dn(z * z)
	s := invOdd64[logTerms-1].lo
	for i := logTerms - 2; i >= 0; i-- {
		s = dn(dn(s*w) + invOdd64[i].lo)
	}
	return 2 * dn(z*s)
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
