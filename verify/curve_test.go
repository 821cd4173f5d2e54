package verify

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strconv"
	"testing"
)

// curvePoints are the solver's multipliers (certify, Settings{Tiling:
// true}: l0, l1, l2, tau and log_u of its files) at points of small eps
// where its curvature bound acts: n, c, alpha and eps, then the
// multipliers.
var curvePoints = map[string][9]string{
	"(10^4, 0.4999, 5, 1e-3)": {"10000", "0.4999", "5", "0.001",
		"0.9995991195370898", "0.000200680507077946", "0.00020019995583220638", "2.0000000040000003e-09", "1.6014406902797873e-06"},
	"(10^4, 0.495, 5, 1e-3)": {"10000", "0.495", "5", "0.001",
		"0.44877685474670637", "0.4846414538939444", "0.06658169135934924", "2.0000000040000003e-09", "0.002203286671168314"},
	"(10^4, 0.4999, 1.001, 1e-3)": {"10000", "0.4999", "1.001", "0.001",
		"0.9996002925919273", "0.0002000933010577634", "0.0001996141070149987", "5.00000000000195e-13", "3.9977621213438397e-10"},
	"(15, 0.1, 5, 0.01)": {"15", "0.1", "5", "0.01",
		"0.00011852089912801889", "0.9998406822052983", "4.079689557377764e-05", "2.0000000040000003e-09", "0.039995186655955806"},
}

// solverAt returns the certificate's constants at the named point of
// curvePoints.
func solverAt(t testing.TB, name string) *cert {
	x, ok := curvePoints[name]
	if !ok {
		t.Fatalf("no point %s", name)
	}
	n, err := strconv.Atoi(x[0])
	if err != nil {
		t.Fatal(err)
	}
	return solverCert(t, n, x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8])
}

// TestCurveAbovePsi checks curve on random tiles near the diagonal (each
// straddling p = q or within a logit of it, of widths 2^-7 to 2 logits,
// one in eight far out)
// against psi at the tile's corners, at random points inside and at a
// point of the diagonal where the tile meets it, enclosed by the
// big.Float full sums (psi.go): the bound must be at least psi there.
// Problems: made-up multipliers (madeUpCert) at random n from 1 to 3000
// (windowed from 200, one with the window narrowed to 2^-8 so that the
// tail carries weight), c in [0.01, 0.4999], alpha in [1.001, 1000], eps
// in [1e-3, 5]; the solver's at (15, 0.1, 5, 0.01); an honest ranges
// certificate (two groups). The wrong variants (testCurveWrong: Mq and
// Mp over the tile instead of Bq and Bp, M for max(0, M)) must each fall below psi
// somewhere (below the enclosure's lower end: a proved miss), and curve
// must be finite on most tiles.
func TestCurveAbovePsi(t *testing.T) {
	defer func(b int) { windowBits = b }(windowBits)
	rng := rand.New(rand.NewPCG(11, 2026))
	probs := []splitProb{{"solver (15, 0.1, 5, 0.01)", solverAt(t, "(15, 0.1, 5, 0.01)"), 180, 40}}
	c2, err := parse(honest(t, rangesTwo))
	if err != nil {
		t.Fatal(err)
	}
	probs = append(probs, splitProb{"ranges " + rangesTwo, c2, 180, 20})
	ns := []int{1, 2, 3, 5, 8, 15, 30, 60, 100, 150, 199, 250, 700, 3000, 400}
	for i, n := range ns {
		c := 0.01 + (0.4999-0.01)*rng.Float64()
		if i%4 == 0 {
			c = 0.5 - math.Pow(10, -1-3*rng.Float64()) // near 1/2
		}
		alpha := 1.001 * math.Pow(1000/1.001, rng.Float64())
		eps := 1e-3 * math.Pow(5e3, rng.Float64())
		delta := math.Pow(10, -2-6*rng.Float64())
		pb := splitProb{fmt.Sprintf("made-up (%d, %.6g, %.6g, %.6g)", n, c, alpha, eps), madeUpCert(n, c, alpha, eps, delta), 180, 24}
		switch {
		case n >= 1000:
			pb.boxes = 3
		case n >= 200:
			pb.boxes = 6
		}
		if n == 400 {
			pb.bits, pb.name = 8, pb.name+", window 2^-8"
		}
		probs = append(probs, pb)
	}
	fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
	wrongs := []string{"M over the tile", "M for max(0, M)"}
	var checked, tiles, finite int
	caught := make([]int, len(wrongs))
	for _, pb := range probs {
		windowBits = pb.bits
		pr := newProblem(pb.c)
		p64 := newProblem64(pb.c, new(big.Float), true)
		if pb.bits == 8 && !p64.windowed() {
			t.Fatalf("%s: not windowed", pb.name)
		}
		for range pb.boxes {
			w := math.Ldexp(1, -rng.IntN(7))
			wt := w * math.Ldexp(1, rng.IntN(3)-1)
			s1 := -30 + 38*rng.Float64()
			if tiles%8 == 7 { // far out: p below 1e-13 or 1-p below 1e-17
				s1 = -900 + 870*rng.Float64()
				if rng.IntN(2) == 1 {
					s1 = -s1
				}
			}
			t1 := s1 + (wt+2)*rng.Float64() - wt - 1 // t1 + wt > s1 - 1, t1 < s2 + 1
			s2, t2 := s1+w, t1+wt
			b := box{fin(s1), fin(s2), fin(t1), fin(t2)}
			p1, p2, q1, q2 := logistic64(b.s1), logistic64(b.s2), logistic64(b.t1), logistic64(b.t2)
			r1, r2, _ := curveBox(b, p1, p2, q1, q2)
			curve := func(wrong int) float64 {
				defer func(w int) { testCurveWrong = w }(testCurveWrong)
				testCurveWrong = wrong
				return try(func() float64 { return p64.curve(p1, p2, q1, q2, r1, r2, math.Inf(-1)) })
			}
			ub := curve(0)
			wrong := []float64{curve(1), curve(2)}
			tiles++
			if !math.IsInf(ub, 1) {
				finite++
			}
			xs := []float64{s1, s2, s1 + w*rng.Float64(), s1 + w*rng.Float64()}
			ys := []float64{t1, t2, t1 + wt*rng.Float64(), t1 + wt*rng.Float64()}
			var pts [][2]float64
			for k := range xs {
				pts = append(pts, [2]float64{xs[k], ys[(k+tiles)%len(ys)]})
			}
			if lo, hi := max(s1, t1), min(s2, t2); lo <= hi { // a point of the diagonal
				x := lo + (hi-lo)*rng.Float64()
				pts = append(pts, [2]float64{x, x})
			}
			if pb.c.n >= 1000 {
				pts = pts[len(pts)-2:]
			}
			hit := make([]bool, len(wrongs))
			for _, xy := range pts {
				px, qy := logistic(fin(xy[0])), logistic(fin(xy[1]))
				psi := pr.derivs(px, px, qy, qy, kindsPoint[:1])[0]
				if new(big.Float).SetFloat64(ub).Cmp(psi.lo) < 0 {
					t.Errorf("%s: tile [%v, %v] x [%v, %v]: curve %.17g below psi %s at (%v, %v)",
						pb.name, s1, s2, t1, t2, ub, psi.lo.Text('g', 17), xy[0], xy[1])
				}
				for k, v := range wrong {
					if new(big.Float).SetFloat64(v).Cmp(psi.lo) < 0 {
						hit[k] = true
					}
				}
				checked++
			}
			for k := range hit {
				if hit[k] {
					caught[k]++
				}
			}
		}
	}
	t.Logf("%d tiles, curve finite on %d; %d points; caught: %s %d, %s %d", tiles, finite, checked, wrongs[0], caught[0], wrongs[1], caught[1])
	if checked < 1000 {
		t.Errorf("only %d points", checked)
	}
	if 2*finite < tiles {
		t.Errorf("curve finite on %d of %d tiles only", finite, tiles)
	}
	for k, n := range caught {
		if n == 0 {
			t.Errorf("the wrong variant %q is not caught", wrongs[k])
		}
	}
}

// TestCurveDiag: diag's enclosures of psi_q(p, p) and psi_p(p, p) hold
// 0, and with its enclosure of psi(p, p), within 1e-13 of f + k1 + k2
// wide, they meet the big.Float ones at (p, p) (psi.go, the full sums),
// at logits from -40 to 40 (two for n = 10^4), for the solver's
// multipliers at four points and an honest ranges certificate.
func TestCurveDiag(t *testing.T) {
	c2, err := parse(honest(t, rangesTwo))
	if err != nil {
		t.Fatal(err)
	}
	certs := []*cert{c2}
	for name := range curvePoints {
		certs = append(certs, solverAt(t, name))
	}
	for _, c := range certs {
		pr := newProblem(c)
		p64 := newProblem64(c, new(big.Float), true)
		scale := pr.f.hi
		for _, k := range []ival{pr.k1, pr.k2} {
			scale = addR(scale, k.hi, true)
		}
		sc, _ := scale.Float64()
		maxRel := 0.0
		for _, x := range []float64{-40, -8, -3.7, -0.5, 0, 1.25, 9, 40} {
			if c.n >= 1000 && x != -3.7 && x != 1.25 {
				continue // the big.Float sums cost about 1 s at n = 10^4
			}
			e := end{r: new(big.Rat).SetFloat64(x), f: x, exact: true}
			p := logistic64(e)
			value, fd := p64.diag(p, p)
			slopes := []fi{fd.mul(p64.oma), fd.mul(p64.a)} // psi_q, psi_p
			for k, v := range slopes {
				if !(v.lo <= 0 && 0 <= v.hi) {
					t.Errorf("n %d, logit %v: slope %d's enclosure %v without 0", c.n, x, k, v)
				}
			}
			px := logistic(e)
			ref := pr.derivs(px, px, px, px, [][2]int{{0, 0}, {0, 1}, {1, 0}})
			for k, v := range []fi{value, slopes[0], slopes[1]} {
				if new(big.Float).SetFloat64(v.hi).Cmp(ref[k].lo) < 0 || new(big.Float).SetFloat64(v.lo).Cmp(ref[k].hi) > 0 {
					t.Errorf("n %d, logit %v: diag's %v apart from the big.Float [%s, %s]", c.n, x, v, ref[k].lo.Text('g', 17), ref[k].hi.Text('g', 17))
				}
			}
			rel := (value.hi - value.lo) / sc
			maxRel = max(maxRel, rel)
			if rel > 1e-13 {
				t.Errorf("n %d, logit %v: psi(p, p) enclosure %v, width %.3g of f + k1 + k2", c.n, x, value, rel)
			}
		}
		t.Logf("n %d: psi(p, p) enclosures within %.3g of f + k1 + k2", c.n, maxRel)
	}
}

// TestCurveCloses: on tiles near the diagonal, curve is at most L0 + Tau
// while the other bounds are not, so that bound closes them (and does
// not without curve, testNoCurve). The multipliers are the solver's.
func TestCurveCloses(t *testing.T) {
	for _, tc := range []closeCase{
		{"(10^4, 0.4999, 5, 1e-3)", solverAt(t, "(10^4, 0.4999, 5, 1e-3)"), -4, -3.5, -4, -3.5},
		{"(10^4, 0.4999, 5, 1e-3)", solverAt(t, "(10^4, 0.4999, 5, 1e-3)"), -8.125, -7.875, -8.25, -7.75},
		{"(10^4, 0.495, 5, 1e-3)", solverAt(t, "(10^4, 0.495, 5, 1e-3)"), -8.125, -7.875, -8.125, -7.875},
		{"(10^4, 0.4999, 1.001, 1e-3)", solverAt(t, "(10^4, 0.4999, 1.001, 1e-3)"), -4, -3.5, -4, -3.5},
		{"(15, 0.1, 5, 0.01)", solverAt(t, "(15, 0.1, 5, 0.01)"), -8.125, -7.875, -8.125, -7.875},
	} {
		closesAlone(t, tc, "curve", &testNoCurve)
	}
}

// BenchmarkCurveTile: the cost of one tile's bounds, side by side (curve
// with both directions and pairedThird where M > 0; bound as the
// checker runs it, curve closing the tile).
func BenchmarkCurveTile(b *testing.B) {
	for _, tc := range []struct {
		name           string
		c              *cert
		s1, s2, t1, t2 float64
	}{
		{"n10000", solverAt(b, "(10^4, 0.4999, 5, 1e-3)"), -4, -3.5, -4, -3.5},
		{"n15", solverAt(b, "(15, 0.1, 5, 0.01)"), -8.125, -7.875, -8.125, -7.875},
	} {
		rhs := ratIval(new(big.Rat).Add(tc.c.l0, tc.c.tau)).lo
		pr := newProblem64(tc.c, rhs, true)
		fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
		bx := box{fin(tc.s1), fin(tc.s2), fin(tc.t1), fin(tc.t2)}
		p1, p2, q1, q2, _ := pr.logistic4(bx)
		ms, mt := pr.logisticMid(bx.s1, bx.s2), pr.logisticMid(bx.t1, bx.t2)
		r1, r2, _ := curveBox(bx, p1, p2, q1, q2)
		for _, nf := range []struct {
			n string
			f func() float64
		}{
			{"curve", func() float64 { return pr.curve(p1, p2, q1, q2, r1, r2, math.Inf(-1)) }},
			{"monotone", func() float64 { return pr.monotone(p1, p2, q1, q2) }},
			{"splitPaired", func() float64 { return pr.splitPaired(p1, p2, q1, q2) }},
			{"taylorBoth", func() float64 { return pr.taylorBoth(p1, p2, q1, q2, ms, mt, pr.rhs) }},
			{"partialP", func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, 0) }},
			{"bound", func() float64 { return pr.bound(bx) }},
		} {
			b.Run(tc.name+"/"+nf.n, func(b *testing.B) {
				for b.Loop() {
					try(nf.f)
				}
			})
		}
	}
}
