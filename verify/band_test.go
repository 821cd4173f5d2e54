package verify

import (
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"testing"
)

// The band's bound (band.go) against psi and its third derivatives in (s,
// r) computed independently at 60 digits by mpmath, at random points of
// random boxes along the diagonal: the solver's golden file
// (../certify/testdata/diagonal_golden.json, made by
// ../certify/testdata/diagonal_golden.py from the direct sum over j =
// 0..n of F_n's definition; data only, no code of the solver).

type bandGoldenCase struct {
	N                  int
	C, Alpha, Eps      float64
	K1, K2, LogU, LogE float64
	Boxes              []struct {
		B      [4]float64   // s1, s2, r1, r2
		Points [][2]float64 // (s, r)
		Psi    []string     // psi at each point
		D3     [][4]string  // D^(3,0), D^(2,1), D^(1,2), D^(0,3) of psi in (s, r)
	}
}

func readBandGolden(t *testing.T) []bandGoldenCase {
	return readBandCases(t, "../certify/testdata/diagonal_golden.json", 7)
}

// readBandCases reads at least want golden cases from path.
func readBandCases(t *testing.T, path string, want int) []bandGoldenCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cs []bandGoldenCase
	if err := json.Unmarshal(data, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) < want {
		t.Fatalf("%s: %d golden cases, want %d", path, len(cs), want)
	}
	return cs
}

// bandGoldenProblem is the band problem of a golden case: psi = F_n/U -
// K1 G/E - K2 G^T/E with log E = LogE exactly (eps = LogE/(alpha-1) as a
// rational), and no right side (every bound is computed in full).
func bandGoldenProblem(dc bandGoldenCase) *bandProblem {
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	a := rat(dc.Alpha)
	eps := new(big.Rat).Quo(rat(dc.LogE), new(big.Rat).Sub(a, big.NewRat(1, 1)))
	c := &cert{d: dc.N, k: 1, n: dc.N, c: rat(dc.C), alpha: a, eps: eps, claim: rat(1),
		l0: rat(0), l1: rat(dc.K1), l2: rat(dc.K2), tau: rat(0), logU: rat(dc.LogU)}
	inf := new(big.Float).SetInf(false)
	pr := newProblem64(c, inf, true)
	return newBandProblem(c, pr)
}

func floatBox(b [4]float64) box {
	e := func(x float64) end { return end{r: new(big.Rat).SetFloat64(x), f: x, exact: true} }
	return box{e(b[0]), e(b[1]), e(b[2]), e(b[3])}
}

// below says whether x < the decimal y, exactly.
func below(x float64, y string) bool {
	f, _, err := big.ParseFloat(y, 10, 300, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return new(big.Float).SetPrec(300).SetFloat64(x).Cmp(f) < 0
}

// TestBandEnclosure checks that the band's Taylor bound of every golden
// box is finite and never below psi at the box's points.
func TestBandEnclosure(t *testing.T) {
	bandEnclosure(t, readBandGolden(t))
}

func bandEnclosure(t *testing.T, cs []bandGoldenCase) {
	worst := math.Inf(1)
	bounded, boxes := 0, 0
	for _, dc := range cs {
		bp := bandGoldenProblem(dc)
		for _, b := range dc.Boxes {
			ub := bp.taylor(floatBox(b.B))
			boxes++
			if math.IsInf(ub, 1) {
				continue
			}
			bounded++
			for i, x := range b.Points {
				if below(ub, b.Psi[i]) {
					t.Errorf("n=%d c=%g alpha=%g: box %v: bound %.17g below psi %s at %v", dc.N, dc.C, dc.Alpha, b.B, ub, b.Psi[i], x)
				}
				f, _, _ := big.ParseFloat(b.Psi[i], 10, 64, big.ToNearestEven)
				v, _ := f.Float64()
				worst = min(worst, ub-v)
			}
		}
	}
	if bounded < boxes {
		t.Errorf("the band's Taylor form bounded %d of %d boxes", bounded, boxes)
	}
	t.Logf("least bound - psi over the points: %.3g (%d boxes)", worst, boxes)
}

// bandThirdMisses counts the golden points where a third derivative of psi
// in (s, r) lies outside the band's enclosure over its box (all of a
// box's when its enclosure is an arithmetic exception).
func bandThirdMisses(t *testing.T, cs []bandGoldenCase, report bool) (misses, total int) {
	for _, dc := range cs {
		bp := bandGoldenProblem(dc)
		for _, b := range dc.Boxes {
			for _, meet := range []bool{false, true} { // the difference form alone, and intersected
				S, R := fi{b.B[0], b.B[1]}, fi{b.B[2], b.B[3]}
				var r [4]fi
				if try(func() float64 { r = bp.thirdRange(S, R, meet); return 0 }) != 0 {
					// No enclosure (e.g. the two forms disjoint): every
					// derivative at the box's points is missed.
					misses += 4 * len(b.Points)
					total += 4 * len(b.Points)
					if report {
						t.Errorf("n=%d c=%g alpha=%g box %v meet %v: an arithmetic exception", dc.N, dc.C, dc.Alpha, b.B, meet)
					}
					continue
				}
				for i := range b.Points {
					for k := range 4 {
						total++
						if below(r[k].hi, b.D3[i][k]) || !below(r[k].lo, b.D3[i][k]) {
							misses++
							if report {
								t.Errorf("n=%d c=%g alpha=%g box %v meet %v point %v: D3[%d] = %s outside [%g, %g]", dc.N, dc.C, dc.Alpha, b.B, meet, b.Points[i], k, b.D3[i][k], r[k].lo, r[k].hi)
							}
						}
					}
				}
			}
		}
	}
	return misses, total
}

// TestBandThird checks the third derivatives' enclosures against mpmath,
// and that a deliberately wrong derivative (Phi_s without its
// alpha-sized part mu psi”) is caught.
func TestBandThird(t *testing.T) {
	cs := readBandGolden(t)
	if m, n := bandThirdMisses(t, cs, true); m != 0 {
		t.Fatalf("%d of %d third derivatives outside their enclosures", m, n)
	}
	testBandDropMu = true
	defer func() { testBandDropMu = false }()
	m, n := bandThirdMisses(t, cs, false)
	if m == 0 {
		t.Fatalf("a wrong Phi_s went unnoticed at all %d derivatives", n)
	}
	t.Logf("wrong Phi_s: %d of %d third derivatives outside their enclosures", m, n)
}

// TestBandRandomBig checks the band's bound against the checker's
// big.Float enclosure of psi (128 bits, every j summed) at random points
// of random band boxes, at several (n, c, alpha), with multipliers that
// make psi vanish on the diagonal (F_n(p, p) = 1, G(p, p) = 1: log U = 0,
// L1 = L2 = E/2), where psi's terms cancel most.
func TestBandRandomBig(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 2))
	bounded, boxes, points := 0, 0, 0
	for _, p := range []struct {
		n        int
		c, alpha float64
		eps      float64
	}{{1, 0.495, 1000, 1e-3}, {7, 0.2, 300, 0.01}, {60, 0.45, 50, 1e-3}, {1000, 0.495, 100, 1e-3}, {500, 0.49, 10, 0.05},
		{2000, 0.48, 600, 0.002}} { // the last: large l, F's pieces nearly G's
		rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
		half := math.Exp((p.alpha-1)*p.eps) / 2
		c := &cert{d: p.n, k: 1, n: p.n, c: rat(p.c), alpha: rat(p.alpha), eps: rat(p.eps), claim: rat(1),
			l0: rat(0), l1: rat(half), l2: rat(half), tau: rat(0), logU: rat(0)}
		bp := newBandProblem(c, newProblem64(c, new(big.Float).SetInf(false), true))
		slow := newProblem(c)
		for range 6 {
			ws := math.Pow(10, -2+2*rng.Float64())
			s2 := -20 * rng.Float64()
			wr := math.Pow(10, -1.3+1.9*rng.Float64()) / p.alpha
			r1 := (16*rng.Float64()-8)/p.alpha - wr/2
			bx := [4]float64{s2 - ws, s2, r1, r1 + wr}
			ub := bp.taylor(floatBox(bx))
			boxes++
			if math.IsInf(ub, 1) {
				continue
			}
			bounded++
			for i := range 4 {
				s, r := bx[0]+ws*rng.Float64(), bx[2]+wr*rng.Float64()
				if i == 0 {
					s, r = bx[0], bx[3] // a corner
				}
				st := new(big.Rat).Add(rat(s), rat(r))
				ms, mt := logistic(end{r: rat(s)}), logistic(end{r: st})
				v := slow.derivs(ms, ms, mt, mt, kindsPoint[:1])[0]
				points++
				if new(big.Float).SetFloat64(ub).Cmp(v.lo) < 0 {
					t.Errorf("%+v: box %v: bound %.17g below psi >= %s at (s, r) = (%g, %g)", p, bx, ub, v.lo.Text('g', 20), s, r)
				}
			}
		}
	}
	if bounded < boxes {
		t.Errorf("the band's Taylor form bounded %d of %d boxes", bounded, boxes)
	}
	t.Logf("%d boxes, %d points", boxes, points)
}

// TestInBand checks the exact test of a tile inside the band's
// parallelogram, at its edges.
func TestInBand(t *testing.T) {
	e := func(s string) end {
		v, err := parseEnd(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	bc := &bandCert{beta: e("0.1"), s1: e("-2"), s2: e("0")}
	for _, c := range []struct {
		b    [4]string
		want bool
	}{
		{[4]string{"-1", "-0.5", "-1.1", "-0.9"}, false}, // t1 - s2 = -0.6
		{[4]string{"-1", "-0.9", "-1", "-0.9"}, true},    // t2 - s1 = 0.1, t1 - s2 = -0.1
		{[4]string{"-1", "-0.9", "-1", "-0.8999999999999999999999"}, false},
		{[4]string{"-2.0000000000000000001", "-1.95", "-2", "-1.95"}, false}, // s1 below the band
		{[4]string{"-0.05", "0", "-0.05", "0.05"}, true},
		{[4]string{"-0.05", "0", "-0.05", "inf"}, false},
	} {
		b := box{e(c.b[0]), e(c.b[1]), e(c.b[2]), e(c.b[3])}
		if got := bc.inBand(b); got != c.want {
			t.Errorf("%v: inBand %v, want %v", b, got, c.want)
		}
	}
	var none *bandCert
	if none.inBand(box{e("-1"), e("-0.9"), e("-1"), e("-0.9")}) {
		t.Error("no band: a tile is inside it")
	}
}

// The difference form of the band's third derivatives (band.go,
// thirdRange) where large l makes F's pieces nearly cancel G's, against
// mpmath: testdata/band_diff_golden.json, made by
// testdata/band_diff_inputs.py (boxes, points, multipliers: those of
// certificates written by bernamp post, or those with which psi vanishes
// on the diagonal) and ../certify/testdata/diagonal_golden.py (psi and
// its third derivatives at 60 digits from the direct sum over j = 0..n).
const bandDiffGolden = "testdata/band_diff_golden.json"

// TestBandDiffGolden checks the band's bound and its third derivatives'
// enclosures at the golden points where the difference form is used, and
// that a wrong difference form is caught: its term (e^Delta - 1) D3
// e^Phi_Inf dropped, or Delta with the wrong sign.
func TestBandDiffGolden(t *testing.T) {
	cs := readBandCases(t, bandDiffGolden, 6)
	bandEnclosure(t, cs)
	if m, n := bandThirdMisses(t, cs, true); m != 0 {
		t.Fatalf("%d of %d third derivatives outside their enclosures", m, n)
	}
	defer func() { testBandDiffBug = 0 }()
	for bug, what := range map[int]string{1: "without (e^Delta - 1) D3 f", 2: "with -Delta"} {
		testBandDiffBug = bug
		m, n := bandThirdMisses(t, cs, false)
		if m == 0 {
			t.Errorf("the difference form %s went unnoticed at all %d derivatives", what, n)
		}
		t.Logf("the difference form %s: %d of %d third derivatives outside their enclosures", what, m, n)
	}
	testBandDiffBug = 0
}

// TestBandDiffTighter compares the enclosures with the pieces taken one
// by one (bandDiffFrom = +Inf) on every golden box of both files: the
// intersection never wider (beyond rounding; the difference form alone
// was up to 364 times wider at (1, 0.495, 10), where e^-(l+x) is not
// small), and on the survey point's box s in [-0.25, -0.1875], r in
// [0.0159, 0.01656] at (n, c, alpha, eps) = (3342, 0.4572, 377.353,
// 0.003274) with a certificate's multipliers (the solver's D^(0,3) there
// is about [-21, -1.4]) both at least 1000 times narrower.
func TestBandDiffTighter(t *testing.T) {
	cs := readBandCases(t, bandDiffGolden, 6)
	if dc := cs[0]; dc.N != 3342 || dc.Boxes[0].B != [4]float64{-0.25, -0.1875, 0.0159, 0.01656} {
		t.Fatalf("the golden file's first case is n = %d, box %v, not the survey point's", dc.N, dc.Boxes[0].B)
	}
	from := bandDiffFrom
	defer func() { bandDiffFrom = from }()
	for c, dc := range append(cs, readBandGolden(t)...) {
		bp := bandGoldenProblem(dc)
		for i, b := range dc.Boxes {
			S, R := fi{b.B[0], b.B[1]}, fi{b.B[2], b.B[3]}
			bandDiffFrom = from
			alone, nw := bp.thirdRange(S, R, false), bp.thirdRange(S, R, true)
			bandDiffFrom = math.Inf(1)
			old := bp.thirdRange(S, R, false)
			for k := range 4 {
				wa, wn, wo := alone[k].hi-alone[k].lo, nw[k].hi-nw[k].lo, old[k].hi-old[k].lo
				if wn > wo*(1+1e-9) {
					t.Errorf("n=%d box %v: D3[%d] enclosure %v wider than the pieces' one by one %v", dc.N, b.B, k, nw[k], old[k])
				}
				if c == 0 && i == 0 && !(wn*1e3 < wo && wa*1e3 < wo) {
					t.Errorf("survey box %v: D3[%d] enclosures %v and %v (alone) not 1000 times narrower than the pieces' %v (width %.3g)", b.B, k, nw[k], alone[k], old[k], wo)
				}
			}
			if c == 0 && i == 0 {
				t.Logf("survey box %v: D^(0,3) in [%.4g, %.4g] (the difference form alone [%.4g, %.4g]), pieces one by one [%.4g, %.4g]; mpmath %s at %v",
					b.B, nw[3].lo, nw[3].hi, alone[3].lo, alone[3].hi, old[3].lo, old[3].hi, b.D3[0][3], b.Points[0])
			}
		}
	}
}

// TestBandDiffCertBoxes checks that band boxes of a certificate written
// by bernamp post at the survey point (3342, 0.4572, 377.353, 0.003274)
// are proved by the Taylor form unsplit (the checker's enclosures as
// tight as the solver's that chose them), where the pieces taken one by
// one (bandDiffFrom = +Inf) fail.
func TestBandDiffCertBoxes(t *testing.T) {
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("%q", s)
		}
		return r
	}
	c := &cert{d: 3342, k: 1, n: 3342, c: rat("0.4572"), alpha: rat("377.353"), eps: rat("0.003274"),
		claim: rat("0.0032739981318081245"), l0: rat("4.725357479239361e-07"), l1: rat("0.9999993235485495"),
		l2: rat("2.039157150314295e-07"), tau: rat("1.8817653541039962e-07"), logU: rat("1.23217883072385")}
	for _, x := range []*big.Rat{c.c, c.alpha, c.eps} { // the file's exact float64 values
		f, _ := x.Float64()
		x.SetFloat64(f)
	}
	c.band = &bandCert{}
	ch := newChecker(c)
	from := bandDiffFrom
	defer func() { bandDiffFrom = from }()
	for _, s := range [][4]string{
		{"-1", "-0.75", "-0.042400616928976315", "-0.03975057837091529"},
		{"-1.25", "-1", "-0.03975057837091529", "-0.03710053981285427"},
		{"-3.5", "-3", "-0.03710053981285427", "-0.03445050125479325"},
		{"-4.5", "-4", "-0.03975057837091529", "-0.03710053981285427"},
		{"-0.75", "-0.5", "-0.02385034702254918", "-0.021200308464488157"},
		{"-0.5", "0", "-0.007950115674183059", "-0.005300077116122039"},
	} {
		var b box
		for i, p := range []*end{&b.s1, &b.s2, &b.t1, &b.t2} {
			e, err := parseEnd(s[i])
			if err != nil {
				t.Fatal(err)
			}
			*p = e
		}
		bandDiffFrom = from
		ub := ch.band.taylor(b)
		bandDiffFrom = math.Inf(1)
		old := ch.band.taylor(b)
		if ub > ch.fast.rhs {
			t.Errorf("box %v: Taylor bound %.6g above l0 + tau = %.6g", s, ub, ch.fast.rhs)
		}
		if old <= ch.fast.rhs {
			t.Errorf("box %v: the pieces one by one close it too (%.6g): not a test of the difference form", s, old)
		}
		t.Logf("box %v: Taylor bound %.4g (pieces one by one %.4g), l0 + tau %.4g", s, ub, old, ch.fast.rhs)
	}
}
