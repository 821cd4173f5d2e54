package verify

import (
	"context"
	"math/big"

	"github.com/bernamp/bernamp/certfile"
)

// MaxCornerN caps n = d k of a certfile.KindDeltaCorners certificate: the
// check evaluates every configuration of dimension n, 203,490 outputs at n
// = 8 (0.7 s, docs/certificates.md), and the count grows about 2.5 times
// per unit of n.
const MaxCornerN = certfile.MaxDeltaCornersN

// checkDeltaCorners checks a certificate of kind certfile.KindDeltaCorners:
// the claim must be at least the upper end of the checker's enclosure of
// the corner program at n = d k,
//
//	max over (n_1, ..., n_7), n_1 + ... + n_7 = n, of
//	H(n_.) = sum_m [u(m) - g v(m)]_+,
//	u = sum_i P~_i K_i,  v = sum_i Q~_i K_i,  K_i(m) = prod_t W(b_i(t), n_t, m_t),
//
// with g = e^eps_out, the canonical pair (e = e^eps)
//
//	P~ = (delta, (1-delta) e/(1+e), (1-delta)/(1+e), 0),
//	Q~ = (0, (1-delta)/(1+e), (1-delta) e/(1+e), delta),
//
// point i's bit on pattern t b_i(t) = (t >> (i-1)) & 1 for i = 1, 2, 3
// and 0 for i = 0, and W(0, s, m) = C(s, m) c^m (1-c)^(s-m), W(1, s, m) =
// W(0, s, s-m) (the count of ones among s coordinates sampled once).
//
// What it trusts (docs/hockey.md): every (eps, delta)-DP pair is a
// post-processing of the canonical pair (Kairouz, Oh and Viswanath), so
// delta' is the supremum over four points of [c, 1-c]^n of H_g of their
// images; for one sample per coordinate the objective is convex in each
// point and the image affine, so the points may be taken at corners
// (exact for k = 1); for k >= 2, delta' at (d, k) is at most that of one
// sample at n = d k (the lifting lemma). The rest is exact symmetry:
// flipping a coordinate in all four corners puts point 0 on the all-c
// corner, permuting coordinates groups them by pattern (the bits of
// points 1 to 3, t = 0..7), a pattern-0 coordinate has the same output
// law under every point (it leaves H unchanged, so dropping it gives the
// configurations of sum below n, each no larger than one of sum n:
// marginalizing out a coordinate is post-processing, and H_g obeys data
// processing), and the count of ones in a group is
// sufficient (each point's law of the group's bits depends on the count
// only). So the maximum over the configurations is delta' itself for k =
// 1, and bounds it for k >= 2.
//
// Arithmetic: the masses and W are enclosed at 128 bits, u from the upper
// ends and v from the lower ends (all terms >= 0), u - g v rounded up,
// [.]_+ of that and the sum rounded up: the upper end of H. The claim is
// compared with it exactly. (The error is about 2^-125 per unit of u
// summed, far below the solver's.)
func checkDeltaCorners(ctx context.Context, f *certfile.File) (Report, error) {
	pt, failure, err := parseDeltaPoint(f, MaxCornerN, "corners")
	if err != nil || failure != "" {
		return Report{Failure: failure}, err
	}
	var rep Report
	reject := rejecter(&rep)
	c, eps, delta, epsOut, claim := pt.c, pt.eps, pt.delta, pt.epsOut, pt.claim
	if claim.Cmp(big.NewRat(1, 1)) >= 0 {
		rep.Bound = 1
		rep.Accepted = true
		return rep, nil
	}
	hi, best, err := cornerProgram(ctx, f.N, c, eps, delta, epsOut)
	if err != nil {
		return rep, err
	}
	rep.Bound, _ = newUp(53).Set(hi).Float64()
	if r, _ := hi.Rat(nil); claim.Cmp(r) < 0 {
		return reject("claim %s is below the corner program's maximum %s (configuration n_1..n_7 = %v)", f.Claim, hi.Text('g', 20), best)
	}
	rep.Accepted = true
	return rep, nil
}

// addInto sets z (its precision and rounding mode set) to a + b, rounded
// by z's mode, in place; where the exponents of a and b are far apart it
// takes addR's result (up: z rounds up).
func addInto(z, a, b *big.Float, up bool) *big.Float {
	if a.Sign() != 0 && b.Sign() != 0 {
		ea, eb := a.MantExp(nil), b.MantExp(nil)
		if ea-eb > prec+16 || eb-ea > prec+16 {
			return z.Set(addR(a, b, up))
		}
	}
	return z.Add(a, b)
}

// cornerProgram returns the upper end of the enclosure of the corner
// program's maximum (checkDeltaCorners) over the configurations with n_1
// + ... + n_7 = n, and one attaining it. Those with a smaller sum are no
// larger: marginalizing out a coordinate is post-processing, which does
// not increase H_g.
func cornerProgram(ctx context.Context, n int, c, eps, delta, epsOut *big.Rat) (*big.Float, [7]int, error) {
	// Masses: s1 = e/(1+e) = 1/(1+a), s0 = 1/(1+e) = a/(1+a), a = e^-eps.
	one := constIval(1)
	a := ratIval(eps).neg().exp()
	s1 := one.div(one.add(a))
	s0 := a.div(one.add(a))
	d := ratIval(delta)
	dm := one.sub(d)
	// P~ on points 0, 1, 2 (upper ends) and Q~ on points 1, 2, 3 (lower
	// ends); P~_3 = Q~_0 = 0.
	pHi := [3]*big.Float{d.hi, dm.mul(s1).hi, dm.mul(s0).hi}
	qLo := [3]*big.Float{dm.mul(s0).lo, dm.mul(s1).lo, d.lo}
	gLo := ratIval(epsOut).exp().lo
	// w[s][m] encloses C(s, m) c^m (1-c)^(s-m), s = 0..n.
	w := make([][]ival, n+1)
	for s := range w {
		w[s] = weightsBig(s, c)
	}
	best, bestCf := newUp(prec), [7]int{}
	var cf [7]int
	var groups []int // patterns t+1 with cf[t] > 0
	var err error
	count := 0
	// Scratch, per depth of the walk: the products of the factors over the
	// groups so far, upper ends for points 0..2 and lower ends for 1..3.
	var hiP, loP [8][3]*big.Float
	for g := range hiP {
		for i := range 3 {
			hiP[g][i], loP[g][i] = newUp(prec), newDown(prec)
		}
	}
	for i := range 3 {
		hiP[0][i].SetInt64(1)
		loP[0][i].SetInt64(1)
	}
	h := newUp(prec)
	u, ut, t := newUp(prec), newUp(prec), newUp(prec)
	v, vt := newDown(prec), newDown(prec)
	var walk func(g int)
	walk = func(g int) {
		if err != nil {
			return
		}
		if g == len(groups) {
			if count++; count%4096 == 0 {
				if err = ctx.Err(); err != nil {
					return
				}
			}
			// [u - g v]_+ of one output, from above.
			u.Mul(pHi[0], hiP[g][0])
			v.Mul(qLo[0], loP[g][0])
			for i := 1; i < 3; i++ {
				addInto(u, u, ut.Mul(pHi[i], hiP[g][i]), true)
				addInto(v, v, vt.Mul(qLo[i], loP[g][i]), false)
			}
			if addInto(t, u, v.Neg(v.Mul(v, gLo)), true); t.Sign() > 0 {
				addInto(h, h, t, true)
			}
			return
		}
		tp := groups[g]
		s := cf[tp-1]
		for m := 0; m <= s; m++ {
			// Point 0 reads bit 0 on every pattern; point i (1..3) the bit
			// i-1 of the pattern. Upper products for points 0..2 (index i),
			// lower ones for points 1..3 (index i-1).
			for i := range 4 {
				bit := 0
				if i > 0 {
					bit = tp >> (i - 1) & 1
				}
				x := w[s][m]
				if bit == 1 {
					x = w[s][s-m]
				}
				if i < 3 {
					hiP[g+1][i].Mul(hiP[g][i], x.hi)
				}
				if i > 0 {
					loP[g+1][i-1].Mul(loP[g][i-1], x.lo)
				}
			}
			walk(g + 1)
		}
	}
	var compose func(t, left int)
	compose = func(tp, left int) {
		if err != nil {
			return
		}
		if tp == 6 {
			cf[6] = left
			groups = groups[:0]
			for i, s := range cf {
				if s > 0 {
					groups = append(groups, i+1)
				}
			}
			h.SetInt64(0)
			walk(0)
			if err == nil && h.Cmp(best) > 0 {
				best.Set(h)
				bestCf = cf
			}
			return
		}
		for s := 0; s <= left; s++ {
			cf[tp] = s
			compose(tp+1, left-s)
		}
		cf[tp] = 0
	}
	compose(0, n)
	if err != nil {
		return nil, bestCf, err
	}
	return best, bestCf, nil
}
