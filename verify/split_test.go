package verify

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// solverCert returns a pieces certificate's constants (no tiles) at a
// point, with the multipliers as the solver exported them there (inputs
// of the tests: splitPaired must hold for any multipliers, and the
// solver's make it tight near the diagonal).
func solverCert(t testing.TB, n int, c, alpha, eps, l0, l1, l2, tau, logU string) *cert {
	t.Helper()
	r := func(s string) *big.Rat {
		x, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("not a decimal: %q", s)
		}
		return x
	}
	return &cert{n: n, d: n, k: 1, c: r(c), alpha: r(alpha), eps: r(eps),
		l0: r(l0), l1: r(l1), l2: r(l2), tau: r(tau), logU: r(logU)}
}

// The solver's multipliers at three points (certify, Settings{Tiling:
// true}: its exported files' l0, l1, l2, tau and log_u; c, alpha and eps
// as float64, like its files).
func solver15(t *testing.T) *cert {
	return solverCert(t, 15, "0.1", "50", "0.1",
		"2.5839551161183938e-05", "0.9999609813175264", "1.3179131312395487e-05", "2.450000060025001e-08", "4.899760942822349")
}

func solver2(t *testing.T) *cert {
	return solverCert(t, 2, "0.01", "50", "0.1",
		"0.00035583034330188693", "0.9995199425129158", "0.00012422714378235305", "2.450000060025001e-08", "4.8790086390076555")
}

func solver3342(t *testing.T) *cert {
	return solverCert(t, 3342, "0.4572", "377.353", "0.003274",
		"4.725357479239361e-07", "0.9999993235485495", "2.039157150314295e-07", "1.8817653541039962e-07", "1.23217883072385")
}

// madeUpCert returns a pieces certificate's constants at (n, c, alpha,
// eps) with made-up multipliers of the solver's shape: log U = (alpha-1)
// eps, l1 = 1 - delta, l2 = delta/2, l0 = delta/4 (so that psi is near 0
// on the diagonal, where F = G = 1).
func madeUpCert(n int, c, alpha, eps, delta float64) *cert {
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	return &cert{n: n, d: n, k: 1, c: r(c), alpha: r(alpha), eps: r(eps),
		l0: r(delta / 4), l1: r(1 - delta), l2: r(delta / 2), tau: new(big.Rat), logU: r((alpha - 1) * eps)}
}

// splitProb is a problem of TestSplitPairedAbovePsi and
// TestCurveAbovePsi: its certificate, the window's bits and the number of
// boxes tried.
type splitProb struct {
	name  string
	c     *cert
	bits  int
	boxes int
}

// TestSplitPairedAbovePsi checks splitPaired on random boxes, most of
// them near the diagonal p = q at large alpha, against psi at the box's
// corners and at random points inside, enclosed by the big.Float full
// sums (psi.go): the bound must be at least psi there. Problems: the
// solver's multipliers at three points (n = 2, 15, 3342, the last
// windowed, also with the window narrowed to 2^-8 so that the absorbed
// sums carry weight), and made-up ones at random c in [0.01, 0.49],
// alpha in [50, 1000], n from 3 to 1000. The same boxes with the unpaired
// terms taken at the wrong corner (testSplitWrongCorner) must give a
// bound below psi somewhere, and splitPaired must be below both monotone
// and paired on some boxes (it is exercised).
func TestSplitPairedAbovePsi(t *testing.T) {
	defer func(b int) { windowBits = b }(windowBits)
	rng := rand.New(rand.NewPCG(7, 2026))
	probs := []splitProb{
		{"solver (15, 0.1, 50, 0.1)", solver15(t), 180, 60},
		{"solver (2, 0.01, 50, 0.1)", solver2(t), 180, 40},
		{"solver (3342, 0.4572, 377.353, 0.003274)", solver3342(t), 180, 4},
		{"solver (3342, 0.4572, 377.353, 0.003274), window 2^-8", solver3342(t), 8, 3},
	}
	for i := range 8 {
		n := []int{3, 15, 60, 200, 300, 1000, 2, 40}[i]
		c := 0.01 + 0.48*rng.Float64()
		alpha := 50 * math.Pow(20, rng.Float64())
		eps := 0.01 * math.Pow(100, rng.Float64())
		boxes := 30
		if n >= 300 {
			boxes = 6
		}
		probs = append(probs, splitProb{"made-up", madeUpCert(n, c, alpha, eps, 1e-4), 180, boxes})
	}
	fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
	var checked, wrongCaught, better int
	for _, pb := range probs {
		windowBits = pb.bits
		pr := newProblem(pb.c)
		p64 := newProblem64(pb.c, new(big.Float), true)
		if pb.c.n >= windowFrom && !p64.windowed() && pb.bits == 8 {
			t.Fatalf("%s: not windowed", pb.name)
		}
		for trial := range pb.boxes {
			var s1, s2, t1, t2 float64
			switch trial % 4 {
			case 3: // anywhere, moderate
				s1, t1 = -8*rng.Float64(), 16*rng.Float64()-8
				s2, t2 = s1+rng.Float64(), t1+rng.Float64()
			default: // near the diagonal: width 2^-2 to 2^-10, t - s within two widths
				w := math.Ldexp(1, -2-rng.IntN(9))
				s1 = -12 * rng.Float64()
				t1 = s1 + w*(4*rng.Float64()-2)
				s2, t2 = s1+w, t1+w
			}
			s2 = min(s2, 0)
			if !(s1 < s2) {
				continue
			}
			b := box{fin(s1), fin(s2), fin(t1), fin(t2)}
			p1, p2, q1, q2 := logistic64(b.s1), logistic64(b.s2), logistic64(b.t1), logistic64(b.t2)
			ub := try(func() float64 { return p64.splitPaired(p1, p2, q1, q2) })
			others := min(try(func() float64 { return p64.monotone(p1, p2, q1, q2) }), try(func() float64 { return p64.paired(p1, p2, q1, q2) }))
			testSplitWrongCorner = true
			wrong := try(func() float64 { return p64.splitPaired(p1, p2, q1, q2) })
			testSplitWrongCorner = false
			if ub < others {
				better++
			}
			// Corners and random points; two for large n (psi in
			// big.Float costs about 0.2 s at n = 1000).
			xs := []float64{s1, s2, s1 + (s2-s1)*rng.Float64(), s1 + (s2-s1)*rng.Float64()}
			ys := []float64{t1, t2, t1 + (t2-t1)*rng.Float64(), t1 + (t2-t1)*rng.Float64()}
			if pb.c.n >= 300 {
				xs = xs[1:3]
			}
			caught := false
			for k := range xs {
				x, y := xs[k], ys[(k+trial)%len(ys)]
				px, qy := logistic(fin(x)), logistic(fin(y))
				psi := pr.derivs(px, px, qy, qy, kindsPoint[:1])[0]
				if new(big.Float).SetFloat64(ub).Cmp(psi.lo) < 0 {
					t.Errorf("%s: box [%v, %v] x [%v, %v]: splitPaired %.17g below psi %s at (%v, %v)",
						pb.name, s1, s2, t1, t2, ub, psi.lo.Text('g', 17), x, y)
				}
				if new(big.Float).SetFloat64(wrong).Cmp(psi.hi) < 0 {
					caught = true
				}
				checked++
			}
			if caught {
				wrongCaught++
			}
		}
	}
	t.Logf("%d points; splitPaired below monotone and paired on %d boxes; the wrong corner caught on %d", checked, better, wrongCaught)
	if checked < 500 {
		t.Errorf("only %d points", checked)
	}
	if better == 0 {
		t.Error("splitPaired never below monotone and paired")
	}
	if wrongCaught == 0 {
		t.Error("the unpaired terms at the wrong corner are not caught")
	}
}

// TestSplitPairedCloses: on boxes near the diagonal that the solver
// closes by its split-paired enclosure, the checker's splitPaired is at
// most L0 + Tau while the other bounds are not (so bound closes them
// without a split, and only through splitPaired).
func TestSplitPairedCloses(t *testing.T) {
	for _, tc := range []closeCase{
		{"(3342, 0.4572, 377.353, 0.003274)", solver3342(t), -2.3125, -2.28125, -2.25, -2.21875},
		{"(3342, 0.4572, 377.353, 0.003274)", solver3342(t), -42.25, -42.21875, -42.3125, -42.28125},
		// Tiles of the solver's certificate at (15, 0.1, 50, 0.1).
		{"(15, 0.1, 50, 0.1)", solver15(t), -8, -6, -6, -4},
		{"(15, 0.1, 50, 0.1)", solver15(t), -6, -5, -5, -4},
		{"(15, 0.1, 50, 0.1)", solver15(t), -12, -10, -10, -8},
		{"(15, 0.1, 50, 0.1)", solver15(t), -27, -26, -28, -27},
	} {
		closesAlone(t, tc, "splitPaired", &testNoSplitPaired)
	}
}

// TestProcessedCloses: the data-processing bound closes boxes of the
// solver's certificates that monotone and paired leave open, where G^T
// dwarfs G (q well above p at large alpha).
func TestProcessedCloses(t *testing.T) {
	for _, tc := range []closeCase{
		{"(3342, 0.4572, 377.353, 0.003274)", solver3342(t), -2.3125, -2.28125, -2.25, -2.21875},
		{"(15, 0.1, 50, 0.1)", solver15(t), -8, -6, -6, -4},
		{"(15, 0.1, 50, 0.1)", solver15(t), -12, -10, -10, -8},
	} {
		rhs := ratIval(new(big.Rat).Add(tc.c.l0, tc.c.tau)).lo
		pr := newProblem64(tc.c, rhs, true)
		fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
		b := box{fin(tc.s1), fin(tc.s2), fin(tc.t1), fin(tc.t2)}
		p1, p2, q1, q2 := logistic64(b.s1), logistic64(b.s2), logistic64(b.t1), logistic64(b.t2)
		ub := try(func() float64 { return pr.processed(p1, p2, q1, q2) })
		others := min(try(func() float64 { return pr.monotone(p1, p2, q1, q2) }), try(func() float64 { return pr.paired(p1, p2, q1, q2) }))
		t.Logf("%s: box [%v, %v] x [%v, %v]: processed %.6g, monotone and paired %.6g (L0 + Tau %.6g)", tc.name, tc.s1, tc.s2, tc.t1, tc.t2, ub, others, pr.rhs)
		if !(ub <= pr.rhs) || others <= pr.rhs {
			t.Errorf("%s: box [%v, %v] x [%v, %v]: processed %.17g, monotone and paired %.17g, L0 + Tau %.17g", tc.name, tc.s1, tc.s2, tc.t1, tc.t2, ub, others, pr.rhs)
		}
	}
}

// closeCase is a box [s1, s2] x [t1, t2] of a problem (named).
type closeCase struct {
	name           string
	c              *cert
	s1, s2, t1, t2 float64
}

// closesAlone checks that the bound named only is at most L0 + Tau on the
// box while each of the other evaluated bounds (monotone, paired,
// splitPaired, the Taylor forms, partial, curve) is above it, and that
// bound closes the box, but not with *off set (the hook that turns only
// off in bound). The data-processing bound (processed), which evaluates
// nothing, is off throughout: it closes some of these boxes too
// (TestProcessedCloses).
func closesAlone(t *testing.T, tc closeCase, only string, off *bool) {
	t.Helper()
	defer func(v bool) { testNoProcessed = v }(testNoProcessed)
	testNoProcessed = true
	rhs := ratIval(new(big.Rat).Add(tc.c.l0, tc.c.tau)).lo
	pr := newProblem64(tc.c, rhs, true)
	fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
	b := box{fin(tc.s1), fin(tc.s2), fin(tc.t1), fin(tc.t2)}
	p1, p2, q1, q2 := logistic64(b.s1), logistic64(b.s2), logistic64(b.t1), logistic64(b.t2)
	ms, mt := logistic64(midEnd(b.s1, b.s2)), logistic64(midEnd(b.t1, b.t2))
	r1, r2, _ := curveBox(b, p1, p2, q1, q2)
	bounds := []struct {
		name string
		f    func() float64
	}{
		{"monotone", func() float64 { return pr.monotone(p1, p2, q1, q2) }},
		{"paired", func() float64 { return pr.paired(p1, p2, q1, q2) }},
		{"splitPaired", func() float64 { return pr.splitPaired(p1, p2, q1, q2) }},
		{"taylor", func() float64 { return pr.taylor(p1, p2, q1, q2, ms, mt, false) }},
		{"taylorPaired", func() float64 { return pr.taylor(p1, p2, q1, q2, ms, mt, true) }},
		{"partialP", func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, 0) }},
		{"partialQ", func() float64 { return pr.partial(p1, p2, q1, q2, ms, mt, 1) }},
		{"curve", func() float64 { return pr.curve(p1, p2, q1, q2, r1, r2, math.Inf(-1)) }},
	}
	for _, nf := range bounds {
		ub := try(nf.f)
		t.Logf("%s: box [%v, %v] x [%v, %v]: %s %.17g (L0 + Tau %+.3g)", tc.name, tc.s1, tc.s2, tc.t1, tc.t2, nf.name, ub, ub-pr.rhs)
		switch {
		case nf.name == only && !(ub <= pr.rhs):
			t.Errorf("%s: %s %.17g above L0 + Tau %.17g", tc.name, only, ub, pr.rhs)
		case nf.name != only && ub <= pr.rhs:
			t.Errorf("%s: %s closes the box too (%.17g): the case does not show %s", tc.name, nf.name, ub, only)
		}
	}
	if ub := pr.bound(b); !(ub <= pr.rhs) {
		t.Errorf("%s: bound %.17g above L0 + Tau", tc.name, ub)
	}
	defer func(v bool) { *off = v }(*off)
	*off = true
	if ub := pr.bound(b); ub <= pr.rhs {
		t.Errorf("%s: bound without %s %.17g closes the box", tc.name, only, ub)
	}
}

// TestHalfTerms: splitPaired's terms of the two halves, with the constant
// term, are the window's terms, each once and in its half (halfOf), the
// most G-like first (log(A_i/A'_i) from largest to smallest for half 0).
func TestHalfTerms(t *testing.T) {
	unk := &cert{n: 6, d: 3, k: 2, alpha: big.NewRat(5, 1), eps: big.NewRat(1, 1),
		groups: []group{{2, big.NewRat(1, 5)}, {4, big.NewRat(1, 3)}},
		l0:     big.NewRat(1, 1), l1: big.NewRat(3, 10), l2: big.NewRat(1, 5), tau: new(big.Rat), logU: big.NewRat(-1, 2)}
	unk.c = unk.groups[0].c
	certs := []*cert{solver15(t), solver2(t), solver3342(t), madeUpCert(301, 0.2, 60, 0.5, 1e-3), unk}
	for _, name := range []string{rangesTwo, rangesThree} {
		c, err := parse(honest(t, name))
		if err != nil {
			t.Fatal(err)
		}
		certs = append(certs, c)
	}
	for _, c := range certs {
		pr := newProblem64(c, new(big.Float), true)
		seen := make([]int, pr.n+1)
		for h := range 2 {
			prev := math.Inf(1 - 2*h)
			for _, j := range pr.halfTerms(h) {
				seen[j]++
				if pr.halfOf(int(j)) != h {
					t.Errorf("n %d: term %d in half %d, not its half %d", pr.n, j, h, pr.halfOf(int(j)))
				}
				// log(A_j/A'_j), from the weights (both positive here).
				v := math.Log(pr.bj[j].lo) - math.Log(pr.bpj[j].lo)
				if h == 0 && v > prev+1e-9 || h == 1 && v < prev-1e-9 {
					t.Errorf("n %d, half %d: term %d (log ratio %g) after one at %g", pr.n, h, j, v, prev)
				}
				prev = v
			}
		}
		for j, k := range seen {
			want := 0
			if j >= pr.lo && j < pr.hi && pr.halfOf(j) >= 0 {
				want = 1
			}
			if k != want {
				t.Errorf("n %d: term %d taken %d times, want %d", pr.n, j, k, want)
			}
		}
	}
}
