package verify

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certfile"
)

// TestBounds64AbovePsi checks every float64 bound of psi (psi64.go) on
// random boxes against psi at random points inside, enclosed by the
// big.Float full sums (psi.go): each bound must be at least psi there.
// Problems: two honest certificates, and made-up constants at n = 300 and
// 2000 (windowed, with the window narrowed to 2^-8 so that the tails
// carry weight).
func TestBounds64AbovePsi(t *testing.T) {
	defer func(b int) { windowBits = b }(windowBits)
	rng := rand.New(rand.NewPCG(41, 9))
	type prob struct {
		name string
		c    *cert
		bits int
	}
	var probs []prob
	for _, name := range []string{"d5-k1-c0.1-alpha5-eps3.json", "d1-k1-c0.3-alpha50-eps1.json", rangesTwo, rangesThree} {
		c, err := parse(honest(t, name))
		if err != nil {
			t.Fatal(err)
		}
		probs = append(probs, prob{name, c, 180})
	}
	// Groups with log-odds log 4 = 2 log 2: terms whose side is unknown
	// (no paired third derivatives; paired puts them with half 0).
	unk := &cert{n: 6, d: 3, k: 2, alpha: big.NewRat(5, 1), eps: big.NewRat(1, 1),
		groups: []group{{2, big.NewRat(1, 5)}, {4, big.NewRat(1, 3)}},
		l0:     big.NewRat(1, 1), l1: big.NewRat(3, 10), l2: big.NewRat(1, 5), tau: new(big.Rat), logU: big.NewRat(-1, 2)}
	unk.c = unk.groups[0].c
	probs = append(probs, prob{"made-up groups", unk, 180})
	for _, n := range []int{300, 800} {
		probs = append(probs, prob{"made-up", &cert{n: n, d: n, k: 1, c: big.NewRat(45, 100), alpha: big.NewRat(5, 1), eps: big.NewRat(1, 1),
			l0: big.NewRat(1, 1), l1: big.NewRat(3, 10), l2: big.NewRat(1, 5), tau: new(big.Rat), logU: big.NewRat(-1, 2)}, 8})
	}
	fin := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x)} }
	checked := 0
	for _, pb := range probs {
		windowBits = pb.bits
		pr := newProblem(pb.c)
		p64 := newProblem64(pb.c, new(big.Float), true)
		if pb.bits == 8 && !p64.windowed() {
			t.Fatalf("n %d: not windowed", pb.c.n)
		}
		trials := 30
		if pb.c.n > 500 {
			trials = 6
		}
		for trial := range trials {
			var s1, s2, t1, t2 float64
			switch trial % 3 {
			case 0: // small
				w := 1e-2 * rng.Float64()
				s1, t1 = -3*rng.Float64(), 6*rng.Float64()-3
				s2, t2 = s1+w, t1+w
			case 1: // moderate
				s1, t1 = -6*rng.Float64(), 12*rng.Float64()-6
				s2, t2 = s1+rng.Float64(), t1+rng.Float64()
			default: // near the edges
				s1, t1 = -30*rng.Float64(), 60*rng.Float64()-30
				s2, t2 = s1+4*rng.Float64(), t1+4*rng.Float64()
			}
			s2 = min(s2, 0)
			if !(s1 < s2) {
				continue
			}
			b := box{fin(s1), fin(s2), fin(t1), fin(t2)}
			p1, p2, q1, q2 := logistic64(b.s1), logistic64(b.s2), logistic64(b.t1), logistic64(b.t2)
			ms, mt := logistic64(midEnd(b.s1, b.s2)), logistic64(midEnd(b.t1, b.t2))
			bounds := map[string]func() float64{
				"processed":    func() float64 { return p64.processed(p1, p2, q1, q2) },
				"monotone":     func() float64 { return p64.monotone(p1, p2, q1, q2) },
				"paired":       func() float64 { return p64.paired(p1, p2, q1, q2) },
				"splitPaired":  func() float64 { return p64.splitPaired(p1, p2, q1, q2) },
				"taylor":       func() float64 { return p64.taylor(p1, p2, q1, q2, ms, mt, false) },
				"taylorPaired": func() float64 { return p64.taylor(p1, p2, q1, q2, ms, mt, true) },
				"partialP":     func() float64 { return p64.partial(p1, p2, q1, q2, ms, mt, 0) },
				"partialQ":     func() float64 { return p64.partial(p1, p2, q1, q2, ms, mt, 1) },
				"bound":        func() float64 { return p64.bound(b) },
			}
			got := map[string]float64{}
			for name, f := range bounds {
				func() {
					defer func() {
						if r := recover(); r != nil {
							if !isArith(r) {
								panic(r)
							}
							got[name] = math.Inf(1)
						}
					}()
					got[name] = f()
				}()
			}
			for range 3 {
				x := fin(s1 + (s2-s1)*rng.Float64())
				y := fin(t1 + (t2-t1)*rng.Float64())
				px, qy := logistic(x), logistic(y)
				psi := pr.derivs(px, px, qy, qy, kindsPoint[:1])[0]
				for name, ub := range got {
					if new(big.Float).SetFloat64(ub).Cmp(psi.lo) < 0 {
						t.Errorf("%s n %d: box %v: %s bound %.17g below psi %s at (%v, %v)", pb.name, pb.c.n, b, name, ub, psi.lo.Text('g', 17), x, y)
					}
				}
				checked++
			}
		}
	}
	if checked < 150 {
		t.Errorf("only %d points", checked)
	}
}

// TestLargeN: the certificates at n = 100, 1000 and 10^4 are accepted by
// the float64 bounds alone (no big.Float fallback), and each of a few
// mutations of the n = 10^4 one is rejected for its reason, without the
// big.Float path (n > bigFallbackMaxN).
func TestLargeN(t *testing.T) {
	for _, name := range []string{"d100-k1-c0.45-alpha5-eps1.json", "d1000-k1-c0.49-alpha5-eps1.json", "d10000-k1-c0.499-alpha5-eps1.json"} {
		r, err := Check(context.Background(), honest(t, name), nil)
		if err != nil || !r.Accepted || r.Fallback != 0 {
			t.Errorf("%s: %+v, %v", name, r, err)
		}
	}
	const name = "d10000-k1-c0.499-alpha5-eps1.json"
	for _, c := range []struct {
		name   string
		mutate func(f *certfile.File)
		reason string
	}{
		{"l1 lowered 1%", func(f *certfile.File) { f.L1 = scale(f.L1, 99, 100) }, "psi"},
		{"l2 set to 0", func(f *certfile.File) { f.L2 = "0" }, "psi"},
		{"c lowered", func(f *certfile.File) { f.C = "0.498" }, "psi"},
		{"log U lowered 1e-4", func(f *certfile.File) { f.LogU = scale(f.LogU, 9999, 10000) }, "psi"},
	} {
		f := honest(t, name)
		c.mutate(f)
		start := time.Now()
		r, err := Check(context.Background(), f, &Options{MaxExtra: 40})
		t.Logf("%s: %.2f s, %d boxes: %s", c.name, time.Since(start).Seconds(), r.Boxes, r.Failure)
		switch {
		case err != nil:
			t.Errorf("%s: error %v", c.name, err)
		case r.Accepted:
			t.Errorf("%s: accepted", c.name)
		case !strings.Contains(r.Failure, c.reason):
			t.Errorf("%s: rejected for %q, want %q", c.name, r.Failure, c.reason)
		}
	}
}

// TestCaps: n above MaxN is rejected before any work.
func TestCaps(t *testing.T) {
	f := honest(t, "d1-k1-c0.1-alpha5-eps1.json")
	f.D, f.N = MaxN+1, MaxN+1
	r, err := Check(context.Background(), f, nil)
	if err != nil || r.Accepted || !strings.Contains(r.Failure, "cap") {
		t.Errorf("n = MaxN+1: %+v, %v", r, err)
	}
}

// TestFallbackShare logs, per honest file, the boxes the float64 bounds
// left to big.Float, and checks that the float64 bounds alone accept at
// least the files that need no split.
func TestFallbackShare(t *testing.T) {
	files, _ := filepath.Glob("../testdata/verify/*.json")
	testNoFallback = true
	defer func() { testNoFallback = false }()
	for _, path := range files {
		f, err := certfile.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Check(context.Background(), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: float64 alone: accepted %v, %d tiles, %d boxes", filepath.Base(path), r.Accepted, r.Tiles, r.Boxes)
	}
}

// TestWeightsRecurrence: the 128-bit recurrence of eachWeight agrees with
// the exact binomial coefficients of newProblem: the two enclosures of
// each B_j overlap, and the recurrence's is narrow (2^-100 relative).
func TestWeightsRecurrence(t *testing.T) {
	for _, n := range []int{1, 2, 15, 200, 1000} {
		for _, c := range []*big.Rat{big.NewRat(1, 10), big.NewRat(45, 100), big.NewRat(1, 1000000)} {
			ce := &cert{n: n, c: c, alpha: big.NewRat(5, 1), eps: big.NewRat(1, 1),
				l0: new(big.Rat), l1: new(big.Rat), l2: new(big.Rat), tau: new(big.Rat), logU: new(big.Rat)}
			exact := newProblem(ce).bj
			lim := new(big.Float).SetMantExp(big.NewFloat(1), -100)
			for j, w := range weightsBig(n, c) {
				e := exact[j]
				if w.lo.Cmp(e.hi) > 0 || w.hi.Cmp(e.lo) < 0 {
					t.Errorf("n %d c %v j %d: [%s, %s] and the exact [%s, %s] are disjoint", n, c, j, w.lo.Text('g', 40), w.hi.Text('g', 40), e.lo.Text('g', 40), e.hi.Text('g', 40))
				}
				width := new(big.Float).Sub(w.hi, w.lo)
				if width.Cmp(new(big.Float).Mul(w.hi, lim)) > 0 {
					t.Errorf("n %d j %d: width %s", n, j, width.Text('g', 5))
				}
			}
		}
	}
}

// TestEndTerms: the bounds from the ends' kept terms (endTerms) agree with
// the ones computed for each tile, stage by stage, on every tile of
// honest certificates (they differ at most by the rounding of a log of a
// max against a max of logs).
func TestEndTerms(t *testing.T) {
	for _, name := range []string{"d5-k1-c0.1-alpha5-eps3.json", "d3-k1-c0.3-alpha50-eps1.json", "d1000-k1-c0.49-alpha5-eps1.json",
		"d1-k1-c1e-06-alpha1000-eps1.json", "d1-k5-c0.0001-alpha1000-eps50.json", "d3-k1-c1e-06-alpha1.01-eps50.json",
		// ranges certificates: the terms of several groups
		"ranges-d2-k2-c0.09999999999999998x2-c0.3x2-alpha5-eps1.json", "ranges-d2-k3-c9.999999999998899e-05x3-c0.3x3-alpha1000-eps1.json",
		"ranges-d3-k1-c0.05x1-c0.19999999999999996x1-c0.4x1-alpha2-eps2.json"} {
		c := testdataCert(t, name)
		kept, none := newChecker(c).fast, newChecker(c).fast
		none.termsOff = true // no end keeps its terms
		used, compared := 0, 0
		for _, tile := range c.tiles {
			p1, p2, q1, q2, e1 := kept.logistic4(tile)
			r1, r2, s1, s2, e2 := none.logistic4(tile)
			if e1 || e2 {
				continue
			}
			if p1.et != nil && q2.et != nil {
				used++
			}
			if r1.et != nil || s2.et != nil {
				t.Fatalf("%s: terms kept with termsOff", name)
			}
			pairs := [][2]float64{
				{try(func() float64 { return kept.monotone(p1, p2, q1, q2) }), try(func() float64 { return none.monotone(r1, r2, s1, s2) })},
				{try(func() float64 { return kept.paired(p1, p2, q1, q2) }), try(func() float64 { return none.paired(r1, r2, s1, s2) })},
			}
			if tile.s1.inf == 0 && tile.s2.inf == 0 && tile.t1.inf == 0 && tile.t2.inf == 0 {
				ms, mt := logisticMid(tile.s1, tile.s2), logisticMid(tile.t1, tile.t2)
				pairs = append(pairs, [2]float64{
					try(func() float64 { return kept.taylorBoth(p1, p2, q1, q2, ms, mt, math.Inf(-1)) }),
					try(func() float64 { return none.taylorBoth(r1, r2, s1, s2, ms, mt, math.Inf(-1)) })})
			}
			for i, pr := range pairs {
				a, b := pr[0], pr[1]
				if math.IsInf(a, 1) != math.IsInf(b, 1) || math.Abs(a-b) > 1e-9*max(1, math.Abs(b)) {
					t.Errorf("%s tile %v, bound %d: %v with the ends' terms, %v without", name, tile, i, a, b)
				}
				compared++
			}
		}
		if used == 0 || compared == 0 {
			t.Errorf("%s: no tile used the ends' terms (%d compared)", name, compared)
		}
	}
}

// TestEndTermsDropped: past the cap on kept terms the least recently used
// half of the kept coordinates drop theirs and take them again when a
// tile asks (keepTerms, reuse): with a cap of three ends' terms every
// tile's float64 bound is the same, bit for bit, as with the full cap.
func TestEndTermsDropped(t *testing.T) {
	c := testdataCert(t, "d1000-k1-c0.49-alpha5-eps1.json")
	full, small := newChecker(c).fast, newChecker(c).fast
	small.testMaxTerms = 3 * (small.hi - small.lo)
	for i, tile := range c.tiles {
		if a, b := full.bound(tile), small.bound(tile); a != b && !(math.IsInf(a, 1) && math.IsInf(b, 1)) {
			t.Fatalf("tile %d %v: bound %v with every end's terms kept, %v with three", i+1, tile, a, b)
		}
	}
	if full.drops != 0 || small.drops < len(c.tiles)/4 {
		t.Errorf("drops: %d with the full cap, %d with three ends' terms (%d tiles)", full.drops, small.drops, len(c.tiles))
	}
	t.Logf("%d tiles, window %d terms: %d drops", len(c.tiles), small.hi-small.lo, small.drops)
}

// testdataCert reads and parses the certificate file name of
// testdata/verify.
func testdataCert(t *testing.T, name string) *cert {
	t.Helper()
	f, err := certfile.ReadFile("../testdata/verify/" + name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
