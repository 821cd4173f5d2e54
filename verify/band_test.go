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
	data, err := os.ReadFile("../certify/testdata/diagonal_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []bandGoldenCase
	if err := json.Unmarshal(data, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) < 7 {
		t.Fatalf("%d golden cases, want 7", len(cs))
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
	worst := math.Inf(1)
	bounded, boxes := 0, 0
	for _, dc := range readBandGolden(t) {
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
// in (s, r) lies outside the band's enclosure over its box.
func bandThirdMisses(t *testing.T, report bool) (misses, total int) {
	for _, dc := range readBandGolden(t) {
		bp := bandGoldenProblem(dc)
		for _, b := range dc.Boxes {
			S, R := fi{b.B[0], b.B[1]}, fi{b.B[2], b.B[3]}
			var r [4]fi
			if try(func() float64 { r = bp.thirdRange(S, R); return 0 }) != 0 {
				t.Fatalf("box %v: an arithmetic exception", b.B)
			}
			for i := range b.Points {
				for k := range 4 {
					total++
					if below(r[k].hi, b.D3[i][k]) || !below(r[k].lo, b.D3[i][k]) {
						misses++
						if report {
							t.Errorf("n=%d c=%g alpha=%g box %v point %v: D3[%d] = %s outside [%g, %g]", dc.N, dc.C, dc.Alpha, b.B, b.Points[i], k, b.D3[i][k], r[k].lo, r[k].hi)
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
	if m, n := bandThirdMisses(t, true); m != 0 {
		t.Fatalf("%d of %d third derivatives outside their enclosures", m, n)
	}
	testBandDropMu = true
	defer func() { testBandDropMu = false }()
	m, n := bandThirdMisses(t, false)
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
	}{{1, 0.495, 1000, 1e-3}, {7, 0.2, 300, 0.01}, {60, 0.45, 50, 1e-3}, {1000, 0.495, 100, 1e-3}, {500, 0.49, 10, 0.05}} {
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
