package certify

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigPrec is the precision of the references below (bits).
const bigPrec = 256

func bf(x float64) *big.Float { return new(big.Float).SetPrec(bigPrec).SetFloat64(x) }

// bigExp returns e^x to about bigPrec bits: e^x = (e^(x/2^k))^(2^k) with
// |x/2^k| < 2^-10 and a Taylor series of 40 terms.
func bigExp(x *big.Float) *big.Float {
	k := 0
	r := new(big.Float).SetPrec(bigPrec).Set(x)
	for r.Cmp(bf(-0x1p-10)) < 0 || r.Cmp(bf(0x1p-10)) > 0 {
		r.Quo(r, bf(2))
		k++
	}
	sum, term := bf(1), bf(1)
	for n := 1; n <= 40; n++ {
		term.Mul(term, r)
		term.Quo(term, bf(float64(n)))
		sum.Add(sum, term)
	}
	for range k {
		sum.Mul(sum, sum)
	}
	return sum
}

// bigLog returns log x (x > 0) by Newton's iteration on e^y = x from the
// float64 log: y <- y + 2 (x - e^y) / (x + e^y) (cubic convergence).
func bigLog(x *big.Float) *big.Float {
	m := new(big.Float)
	e := x.MantExp(m)
	f, _ := m.Float64()
	y := bf(math.Log(f) + float64(e)*math.Ln2)
	for range 3 {
		ey := bigExp(y)
		num := new(big.Float).SetPrec(bigPrec).Sub(x, ey)
		den := new(big.Float).SetPrec(bigPrec).Add(x, ey)
		num.Quo(num, den)
		num.Mul(num, bf(2))
		y.Add(y, num)
	}
	return y
}

// bigKindSums returns the sums of every kind (i, j) of a half of the
// model (n, c, alpha) at its arguments (x, y) = (e^lx, e^ly), exactly
// those: sum_j w_j (1-e_j)^(i+j) u^(alpha-i) v^(1-alpha-j), u = x + (1-x)
// e_j, v = y + (1-y) e_j, with w_j, e_j exact from the float64 c and the
// middle term of an even n halved, all at bigPrec bits (independent of
// eval: no logs of terms, no pairing shortcuts).
func bigKindSums(n int, c, alpha, lx, ly float64) [nKinds]*big.Float {
	p, q := bigExp(bf(lx)), bigExp(bf(ly))
	one := bf(1)
	cb := bf(c)
	cb1 := new(big.Float).SetPrec(bigPrec).Sub(one, cb)
	ipow := func(x *big.Float, k int) *big.Float {
		r := bf(1)
		for range k {
			r.Mul(r, x)
		}
		return r
	}
	var out [nKinds]*big.Float
	for k := range out {
		out[k] = bf(0)
	}
	binom := bf(1)
	for j := 0; 2*j <= n; j++ {
		if j > 0 {
			binom.Mul(binom, bf(float64(n-j+1)))
			binom.Quo(binom, bf(float64(j)))
		}
		w := new(big.Float).SetPrec(bigPrec).Mul(binom, ipow(cb, j))
		w.Mul(w, ipow(cb1, n-j))
		if 2*j == n {
			w.Quo(w, bf(2))
		}
		e := new(big.Float).SetPrec(bigPrec).Quo(ipow(cb, n-2*j), ipow(cb1, n-2*j))
		om := new(big.Float).SetPrec(bigPrec).Sub(one, e)
		mix := func(x *big.Float) *big.Float { // x + (1-x) e
			r := new(big.Float).SetPrec(bigPrec).Sub(one, x)
			r.Mul(r, e)
			return r.Add(r, x)
		}
		lu, lv := bigLog(mix(p)), bigLog(mix(q))
		for k, ij := range kindIJ {
			if k > 0 && om.Sign() == 0 {
				continue
			}
			// u^(alpha-i) v^(1-alpha-j) = e^((alpha-i) log u + (1-alpha-j) log v)
			x := new(big.Float).SetPrec(bigPrec).Mul(lu, bf(alpha-float64(ij[0])))
			y := new(big.Float).SetPrec(bigPrec).Mul(lv, bf(1-alpha-float64(ij[1])))
			t := new(big.Float).SetPrec(bigPrec).Mul(w, ipow(om, ij[0]+ij[1]))
			t.Mul(t, bigExp(x.Add(x, y)))
			out[k].Add(out[k], t)
		}
	}
	return out
}

// TestKindSumsBig checks every kind's sum of eval (value, first, second
// and third derivative kinds, at centers and at corners) against 256-bit
// references at random points at the extremes (alpha 1.001 to 1000, c 1e-6
// to 0.4999, logits to +-40, points on and near the diagonal): the
// computed sum must be within its own bound, relErr, of the reference.
// It fails if the bound is a tenth of what it is (testRelErrScale).
func TestKindSumsBig(t *testing.T) {
	if testing.Short() {
		t.Skip("256-bit references")
	}
	rng := rand.New(rand.NewPCG(33, 2))
	worst, worstTenth := 0.0, 0.0
	for _, n := range []int{1, 2, 3, 8, 15, 40} {
		for _, c := range []float64{1e-6, 0.01, 0.3, 0.4999} {
			for _, alpha := range []float64{1.001, 5, 50, 1000} {
				m := newModel(n, c, alpha)
				for trial := range 3 {
					s := 80*rng.Float64() - 40
					u := 80*rng.Float64() - 40
					if trial == 1 {
						u = s + (rng.Float64()-0.5)/alpha // near the diagonal
					}
					p, q := fromLogit(s), fromLogit(u)
					pts := []*point{m.eval(p, q, 2, false), m.eval(p, q, maxOrder, false)}
					for h := range 2 {
						// Half 0's arguments are (p, q) = (e^p.l, e^q.l),
						// half 1's (1-p, 1-q) = (e^p.l1, e^q.l1): the pair
						// (l, l1) of a coord agrees to a few ulps, which
						// eval's bounds assume.
						lx, ly := p.l, q.l
						if h == 1 {
							lx, ly = p.l1, q.l1
						}
						ref := bigKindSums(n, c, alpha, lx, ly)
						for _, pt := range pts {
							for k := range nKinds {
								if !pt.has(k) {
									continue
								}
								r := kindSumRatio(pt.f[h][k], ref[k])
								worst = math.Max(worst, r)
								worstTenth = math.Max(worstTenth, 10*r)
								if r > 1 {
									t.Errorf("n=%d c=%v a=%v (s, t) = (%v, %v) kinds %d h=%d kind %v: error / bound %.3g", n, c, alpha, s, u, pt.kinds, h, kindIJ[k], r)
								}
							}
						}
					}
				}
			}
		}
	}
	t.Logf("largest error / bound: %.3g", worst)
	if worstTenth <= 1 {
		t.Errorf("with a tenth of the bound the largest error / bound is %.3g: the test cannot fail", worstTenth)
	}
}

// kindSumRatio returns |sum - ref| / (sum relErr) for a sum of eval
// (e^top (s + comp), taken exactly) against its reference (+Inf for an
// error where the bound is 0; 0 for two zeros).
func kindSumRatio(sm sum, ref *big.Float) float64 {
	got := bf(0)
	if !math.IsInf(sm.top, -1) {
		got = bigExp(bf(sm.top))
		got.Mul(got, bf(sm.s+sm.comp))
	}
	diff := new(big.Float).SetPrec(bigPrec).Sub(got, ref)
	diff.Abs(diff)
	bound := new(big.Float).SetPrec(bigPrec).Mul(got, bf(sm.relErr()))
	switch {
	case bound.Sign() > 0:
		r, _ := new(big.Float).SetPrec(bigPrec).Quo(diff, bound).Float64()
		return r
	case diff.Sign() > 0:
		return math.Inf(1)
	}
	return 0
}

// TestSharedTermBig checks addTerm's product path for the derivative kinds
// (sharedTerm) against e^(t - top_k + i (lo - lu) + jj (lo - lv)) at 256
// bits, the float64 inputs taken as exact, at random inputs of every size
// the path accepts (logs to 10^4, mag up to 600): the relative error must
// be within sharedErr (largest ratio 0.43: with sharedUlps at 0.8 instead
// of 2 it fails), and some errors must exceed one ulp.
func TestSharedTermBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 3))
	over, n := 0, 0
	worst := 0.0
	for n < 3000 {
		scale := math.Pow(10, 4*rng.Float64()) // logs from 1 to 10^4
		lu, lv := -scale*rng.Float64(), -scale*rng.Float64()
		lo := -rng.ExpFloat64()
		t0log := -40 * rng.Float64()           // t - top_0 in [-40, 0]
		top0 := scale * (2*rng.Float64() - 1)  // the value's level
		topk := top0 + 300*(2*rng.Float64()-1) // the kind's level
		tt := top0 + t0log
		k := 1 + rng.IntN(nKinds-1)
		i, jj := kindIJ[k][0], kindIJ[k][1]
		a, b := lo-lu, lo-lv
		x := tt + float64(i)*a + float64(jj)*b
		mag := math.Abs(tt-top0) + math.Abs(top0-topk) + float64(i)*math.Abs(a) + float64(jj)*math.Abs(b)
		if mag > 600 || x > topk+30 || math.Abs(a) > 600 || math.Abs(b) > 600 {
			continue
		}
		n++
		v := sharedTerm(math.Exp(tt-top0), math.Exp(top0-topk), math.Exp(a), math.Exp(b), i, jj)
		// The exact term, from the exact differences of the float64 inputs.
		e := new(big.Float).SetPrec(bigPrec).Sub(bf(tt), bf(topk))
		ab := new(big.Float).SetPrec(bigPrec).Sub(bf(lo), bf(lu))
		e.Add(e, ab.Mul(ab, bf(float64(i))))
		bb := new(big.Float).SetPrec(bigPrec).Sub(bf(lo), bf(lv))
		e.Add(e, bb.Mul(bb, bf(float64(jj))))
		want := bigExp(e)
		d := new(big.Float).SetPrec(bigPrec).Sub(bf(v), want)
		d.Quo(d.Abs(d), want)
		rel, _ := d.Float64()
		if bound := sharedErr(mag, i, jj); rel > bound {
			t.Errorf("lu %v lv %v lo %v t %v top0 %v topk %v kind %v: relative error %.3g > bound %.3g", lu, lv, lo, tt, top0, topk, kindIJ[k], rel, bound)
		} else {
			worst = math.Max(worst, rel/bound)
		}
		if rel > 0x1p-52 { // beyond the product's last rounding alone
			over++
		}
	}
	t.Logf("%d terms, largest error / bound %.3g, %d beyond one ulp", n, worst, over)
	if over == 0 {
		t.Errorf("no term's error exceeds one ulp: the bound is not tested")
	}
}
