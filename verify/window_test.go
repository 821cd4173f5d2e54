package verify

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// refF returns F_n(p, q) and its part outside the window [lo, hi) of pr,
// as logs, by a direct sum independent of the bounds: u_j and v_j in
// big.Float from the 128-bit weights, each term e^(a log u + (1-a) log v)
// in float64 log space (accurate to about 1e-12 relative; a reference,
// not an enclosure).
func refF(w []ival, p, q float64, a float64, lo, hi int) (logF, logTail float64) {
	n := len(w) - 1
	pb, qb := new(big.Float).SetFloat64(p), new(big.Float).SetFloat64(q)
	pc := new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), pb)
	qc := new(big.Float).SetPrec(prec).Sub(big.NewFloat(1), qb)
	lse := func(acc *[2]float64, x float64) { // running log-sum-exp: max, sum of e^(x - max)
		if math.IsInf(x, -1) {
			return
		}
		if x > acc[0] {
			acc[1] = acc[1]*math.Exp(acc[0]-x) + 1
			acc[0] = x
		} else {
			acc[1] += math.Exp(x - acc[0])
		}
	}
	logOf := func(x *big.Float) float64 {
		if x.Sign() == 0 {
			return math.Inf(-1)
		}
		m := new(big.Float)
		e := x.MantExp(m)
		f, _ := m.Float64()
		return math.Log(f) + float64(e)*math.Ln2
	}
	all, tail := [2]float64{math.Inf(-1), 0}, [2]float64{math.Inf(-1), 0}
	for j := 0; j <= n; j++ {
		b, bp := w[j].lo, w[n-j].lo
		u := new(big.Float).SetPrec(prec).Mul(pb, b)
		u.Add(u, new(big.Float).SetPrec(prec).Mul(pc, bp))
		v := new(big.Float).SetPrec(prec).Mul(qb, b)
		v.Add(v, new(big.Float).SetPrec(prec).Mul(qc, bp))
		lt := a*logOf(u) + (1-a)*logOf(v)
		lse(&all, lt)
		if j < lo || j >= hi {
			lse(&tail, lt)
		}
	}
	return all[0] + math.Log(all[1]), tail[0] + math.Log(tail[1])
}

// windowMisses draws random (n, c, alpha, p, q), n up to 10^5, and counts
// the points where a windowed upper bound of F_n (fUpper at the point
// plus tail, or plus the absorbed sums of monotone and paired) is below the reference F_n, or the tail bound below the reference tail.
// bits narrows the window (windowBits) so that the tail matters.
func windowMisses(t *testing.T, trials, bits int, withBig bool) int {
	defer func(b int) { windowBits = b }(windowBits)
	windowBits = bits
	rng := rand.New(rand.NewPCG(uint64(bits), 5))
	misses, done := 0, 0
	defer func() {
		if done < trials/2 {
			t.Errorf("only %d of %d points checked", done, trials)
		}
	}()
	for trial := range trials {
		n := windowFrom + int(math.Exp(rng.Float64()*math.Log(1e5/windowFrom)))
		if withBig {
			n = windowFrom + rng.IntN(400)
		}
		cs := []float64{0.5 - math.Ldexp(1, -rng.IntN(12)-2), 0.01 + 0.48*rng.Float64()}
		c := new(big.Rat).SetFloat64(cs[trial%2])
		alpha := []float64{1.5, 5, 50}[rng.IntN(3)]
		ce := &cert{n: n, c: c, alpha: new(big.Rat).SetFloat64(alpha), eps: big.NewRat(1, 1),
			l0: new(big.Rat), l1: new(big.Rat), l2: new(big.Rat), tau: new(big.Rat), logU: new(big.Rat)}
		w := weightsBig(n, c)
		pr := newProblem64(ce, new(big.Float), true)
		if !pr.windowed() {
			continue // every j summed: no tail
		}
		// Dyadic p, q (1-p and 1-q exact in float64).
		p := math.Ldexp(float64(1+rng.IntN(1<<20)), -21)   // (0, 1/2]
		q := math.Ldexp(float64(1+rng.IntN(1<<30-1)), -30) // (0, 1)
		if rng.IntN(4) == 0 {
			q = math.Ldexp(float64(1+rng.IntN(1<<10)), -40) // near 0
		}
		cp := coordOf(pt64(p), pt64(1-p))
		cq := coordOf(pt64(q), pt64(1-q))
		logF, logTail := refF(w, p, q, alpha, pr.lo, pr.hi)
		var fu, fa, tb float64
		func() {
			defer func() {
				if r := recover(); r != nil {
					if !isArith(r) {
						panic(r)
					}
					fu, fa, tb = math.Inf(1), math.Inf(1), math.Inf(1)
				}
			}()
			w := pr.fUpper(cp, cp, cq, cq)
			tb = pr.tail(cp, cp, cq, cq)
			fu = up(w + tb)
			// The omitted terms absorbed into G (monotone, paired).
			sB, sBp := pr.absorbed()
			fa = up(up(w+mulUp(pr.gUpperL(cp.lx.hi, cq.lx.lo), sB)) + mulUp(pr.gUpperL(cp.lxb.hi, cq.lxb.lo), sBp))
		}()
		if math.IsInf(fu, 1) {
			continue // no bound: never accepts
		}
		done++
		// The reference is good to about 1e-12 relative.
		for _, b := range []struct {
			name string
			v    float64
		}{{"with the tail", fu}, {"absorbed", fa}} {
			if math.Log(b.v) < logF-1e-11 {
				misses++
				if !testNoTail {
					t.Errorf("n %d c %v alpha %v (p, q) = (%v, %v): F_n upper bound %s %v below the reference e^%v (window [%d, %d))", n, cs[trial%2], alpha, p, q, b.name, b.v, logF, pr.lo, pr.hi)
				}
			}
		}
		if !testNoTail && !math.IsInf(logTail, -1) && math.Log(tb) < logTail-1e-9 {
			misses++
			t.Errorf("n %d (p, q) = (%v, %v): tail bound %v below the reference tail e^%v", n, p, q, tb, logTail)
		}
		if withBig {
			// A rigorous lower bound of F_n from the big.Float terms.
			bp := newProblem(ce)
			pc, qc := pointIval(new(big.Float).SetFloat64(p)), pointIval(new(big.Float).SetFloat64(q))
			pcb, qcb := constIval(1).sub(pc), constIval(1).sub(qc)
			fl := newDown(prec)
			for j := range bp.bj {
				u := pc.mul(bp.bj[j]).add(pcb.mul(bp.bpj[j]))
				v := qc.mul(bp.bj[j]).add(qcb.mul(bp.bpj[j]))
				fl = addR(fl, bp.gLower(u.lo, v.hi), false)
			}
			if new(big.Float).SetFloat64(fu).Cmp(fl) < 0 {
				misses++
				if !testNoTail {
					t.Errorf("n %d (p, q) = (%v, %v): F_n upper bound %v below the big.Float lower bound %s", n, p, q, fu, fl.Text('g', 20))
				}
			}
		}
	}
	return misses
}

// TestWindowTail: the windowed upper bound of F_n is above F_n, and the
// tail bound above the omitted terms, at random (n, c, alpha, p, q) up to
// n = 10^5: with the default window, and with a window so narrow
// (2^-8) that the tail is a visible part of the sum.
func TestWindowTail(t *testing.T) {
	trials := 24
	if testing.Short() {
		trials = 6
	}
	for _, bits := range []int{windowBits, 8} {
		if m := windowMisses(t, trials, bits, false); m != 0 {
			t.Errorf("window 2^-%d: %d misses", bits, m)
		}
	}
	if m := windowMisses(t, 4, 8, true); m != 0 {
		t.Errorf("window 2^-8 against big.Float: %d misses", m)
	}
}

// TestTailDroppedCaught: without the tail (testNoTail) the narrow window's
// sums fall below F_n, and TestWindowTail's check must see it.
func TestTailDroppedCaught(t *testing.T) {
	testNoTail = true
	defer func() { testNoTail = false }()
	if m := windowMisses(t, 12, 8, false); m == 0 {
		t.Errorf("tail dropped: no miss found")
	}
}

// TestWindowDerivs: the windowed enclosures of the derivatives of psi
// (with their tails) and of the paired third derivatives hold the
// midpoint of the full-sum enclosures, on random boxes with a narrow
// window.
func TestWindowDerivs(t *testing.T) {
	defer func(b int) { windowBits = b }(windowBits)
	windowBits = 8
	rng := rand.New(rand.NewPCG(3, 4))
	checked := 0
	for trial := range 30 {
		n := windowFrom + rng.IntN(600)
		c := new(big.Rat).SetFloat64([]float64{0.3, 0.45, 0.49}[trial%3])
		ce := &cert{n: n, c: c, alpha: big.NewRat(5, 1), eps: big.NewRat(1, 1),
			l0: big.NewRat(1, 1), l1: big.NewRat(1, 3), l2: big.NewRat(1, 5), tau: new(big.Rat), logU: big.NewRat(-1, 2)}
		pr := newProblem64(ce, new(big.Float), true)
		full := pr.full()
		fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x)} }
		s1, t1 := -3*rng.Float64(), 6*rng.Float64()-3
		s2, t2 := s1+0.3*rng.Float64(), t1+0.3*rng.Float64()
		p1, p2, q1, q2 := logistic64(fin(s1)), logistic64(fin(s2)), logistic64(fin(t1)), logistic64(fin(t2))
		kinds := append(append([][2]int{}, kindsPoint...), kindsThird...)
		var got, ref, gp, rp []fi
		func() {
			defer func() {
				if r := recover(); r != nil {
					if !isArith(r) {
						panic(r)
					}
					ref = nil // the full sum underflows (B_j below 2^-1074)
				}
			}()
			var gt, gtr []fi
			got, gt = pr.derivsGT(p1, p2, q1, q2, kinds)
			gp = pr.pairedThird(p1, p2, q1, q2, kindsThird, gt[len(kindsPoint):])
			ref, gtr = full.derivsGT(p1, p2, q1, q2, kinds)
			rp = full.pairedThird(p1, p2, q1, q2, kindsThird, gtr[len(kindsPoint):])
		}()
		if ref == nil || math.IsInf(ref[0].hi, 1) {
			continue
		}
		in := func(x, r fi) bool {
			if math.IsInf(r.lo, 0) || math.IsInf(r.hi, 0) {
				return true // no reference
			}
			m := r.lo/2 + r.hi/2
			return x.lo <= m && m <= x.hi
		}
		for k := range kinds {
			if !in(got[k], ref[k]) {
				t.Errorf("n %d kind %v: windowed [%g, %g] misses the full sum [%g, %g]", n, kinds[k], got[k].lo, got[k].hi, ref[k].lo, ref[k].hi)
			}
		}
		for k := range kindsThird {
			if !in(gp[k], rp[k]) {
				t.Errorf("n %d paired kind %v: windowed [%g, %g] misses the full sum [%g, %g]", n, kindsThird[k], gp[k].lo, gp[k].hi, rp[k].lo, rp[k].hi)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("only %d boxes", checked)
	}
}

// testCert returns the data of a pieces certificate for the float64
// bounds' tests: n alternately small (every j summed) and windowed, c in
// {0.1, 0.45, 0.49}, alpha 2 + trial mod alphas, and arbitrary
// multipliers (the bounds' identities, not a proof, are tested).
func testCert(rng *rand.Rand, trial, small, alphas int) *cert {
	n := []int{small, windowFrom + rng.IntN(3000)}[trial%2]
	c := new(big.Rat).SetFloat64([]float64{0.1, 0.45, 0.49}[trial%3])
	return &cert{n: n, c: c, alpha: big.NewRat(int64(2+trial%alphas), 1), eps: big.NewRat(1, 1),
		l0: big.NewRat(1, 1), l1: big.NewRat(1, 3), l2: big.NewRat(1, 5), tau: new(big.Rat), logU: big.NewRat(-1, 2)}
}

// TestPairedThirdSegment: on a segment (p1 = p2 or q1 = q2, as partial
// forms them) and at a point, pairedThird's enclosures from the distinct
// corners alone are those from all four corners, bit for bit, windowed
// or not.
func TestPairedThirdSegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for trial := range 40 {
		ce := testCert(rng, trial, 7, 5)
		pr := newProblem64(ce, new(big.Float), true)
		fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x)} }
		s1, t1 := -3*rng.Float64(), 6*rng.Float64()-3
		s2, t2 := s1+0.3*rng.Float64(), t1+0.3*rng.Float64()
		p1, p2, q1, q2 := logistic64(fin(s1)), logistic64(fin(s2)), logistic64(fin(t1)), logistic64(fin(t2))
		for _, b := range [][4]coord64{{p1, p2, q1, q1}, {p1, p1, q1, q2}, {p2, p2, q2, q2}} {
			var got, all []fi
			ok := try(func() float64 {
				_, gt := pr.derivsGT(b[0], b[1], b[2], b[3], kindsThird)
				got = pr.pairedThird(b[0], b[1], b[2], b[3], kindsThird, gt)
				testNoSegment = true
				defer func() { testNoSegment = false }()
				all = pr.pairedThird(b[0], b[1], b[2], b[3], kindsThird, gt)
				return 0
			}) == 0
			if !ok || got == nil {
				continue
			}
			for k := range kindsThird {
				if got[k] != all[k] {
					t.Errorf("n %d, trial %d, segment %v, kind %v: %v from the distinct corners, %v from all four", ce.n, trial, b, kindsThird[k], got[k], all[k])
				}
			}
			checked++
		}
	}
	if checked < 80 {
		t.Errorf("only %d segments checked", checked)
	}
}

// TestThirdsCache: partial and taylorBoth on the same tiles, in the
// bound's orders (partial first, taylorBoth, the other partial), give
// the same bounds bit for bit with the third derivatives' enclosures
// kept per box (thirdsAt, pairedThirdsAt) as with derivsGT and
// pairedThird called at each call; consecutive boxes differ in one end
// only, so that a box taken for another is caught.
func TestThirdsCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	checked := 0
	for trial := range 24 {
		ce := testCert(rng, trial, 9, 4)
		fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
		s1, t1 := -3*rng.Float64(), 6*rng.Float64()-3
		w := 0.05 + 0.3*rng.Float64()
		b := [4]float64{s1, s1 + w, t1, t1 + w}
		boxes := []box{{fin(b[0]), fin(b[1]), fin(b[2]), fin(b[3])}}
		for i := range 4 { // the four ends moved in turn, one a box
			b[i] += w / 4 * float64(1-2*(i%2))
			boxes = append(boxes, box{fin(b[0]), fin(b[1]), fin(b[2]), fin(b[3])})
		}
		run := func(off bool) (out []float64) {
			testNoThirdsCache = off
			defer func() { testNoThirdsCache = false }()
			pr := newProblem64(ce, new(big.Float), true)
			for _, b := range boxes {
				p1, p2, q1, q2, bad := pr.logistic4(b)
				if bad {
					continue
				}
				ms, mt := pr.logisticMid(b.s1, b.s2), pr.logisticMid(b.t1, b.t2)
				for _, f := range []func() float64{
					func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, 1) },
					func() float64 { return pr.taylorBoth(p1, p2, q1, q2, ms, mt, math.Inf(-1)) },
					func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, 0) },
				} {
					out = append(out, try(f))
				}
			}
			return out
		}
		kept, again := run(false), run(true)
		if len(kept) != len(again) || len(kept) == 0 {
			t.Fatalf("trial %d: %d bounds kept, %d formed again", trial, len(kept), len(again))
		}
		for i := range kept {
			if kept[i] != again[i] && !(math.IsNaN(kept[i]) && math.IsNaN(again[i])) {
				t.Errorf("n %d, trial %d, bound %d: %v with the kept enclosures, %v formed again", ce.n, trial, i, kept[i], again[i])
			}
			if !math.IsInf(kept[i], 1) {
				checked++
			}
		}
	}
	if checked < 150 {
		t.Errorf("only %d finite bounds compared", checked)
	}
}
