package certify

import (
	"context"
	"encoding/json"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// The diagonal band's enclosures against psi and its third derivatives in
// (s, r) computed independently at 60 digits by mpmath
// (testdata/diagonal_golden.py, from the direct sum over j = 0..n of
// F_n's definition), at random points of random boxes along the diagonal.
// The inputs (boxes, points, and the multipliers k1, k2, log U, log E
// that define psi) were written by this file's TestDiagonalGoldenInputs
// with DIAG_GOLDEN_WRITE set; the script adds the values.

type diagCase struct {
	N                  int
	C, Alpha, Eps      float64
	K1, K2, LogU, LogE float64
	Boxes              []diagBox
}

type diagBox struct {
	B      [4]float64   // s1, s2, r1, r2
	Points [][2]float64 // (s, r)
	Psi    []string     // psi at each point (mpmath)
	D3     [][4]string  // D^(3,0), D^(2,1), D^(1,2), D^(0,3) psi in (s, r) at each point
}

var diagCases = [][4]float64{
	{1, 0.4, 100, 1e-3}, {1, 0.01, 1000, 1e-3}, {15, 0.1, 100, 0.01}, {1, 0.495, 10, 0.05}, {400, 0.45, 30, 1e-3},
	{400, 0.1, 50, 1e-3}, {400, 0.495, 200, 1e-3}, // F's terms grouped (l_j >= bandGroup; within bandBucket)
	// Two open survey points of issue 33, where F's terms have l of 15 to
	// 50 and nearly cancel G's (diffThird).
	{93, 0.2909, 312.409, 1.479e-3}, {341, 0.4206, 540.192, 4.663e-3},
}

const diagGolden = "testdata/diagonal_golden.json"

// TestDiagonalGoldenInputs writes the golden file's inputs (run with
// DIAG_GOLDEN_WRITE=path, then testdata/diagonal_golden.py path).
func TestDiagonalGoldenInputs(t *testing.T) {
	path := goldenWritePath(t, "DIAG_GOLDEN_WRITE")
	rng := rand.New(rand.NewPCG(33, 2))
	var out []diagCase
	for _, p := range diagCases {
		dc := newDiagCase(int(p[0]), p[1], p[2], p[3])
		a := p[2]
		for range 12 {
			ws := math.Pow(10, -2+2.3*rng.Float64())
			s2 := -12 * rng.Float64()
			s1 := s2 - ws
			wr := math.Pow(10, -1.3+1.9*rng.Float64()) / a
			r1 := (16*rng.Float64()-8)/a - wr/2
			b := diagBox{B: [4]float64{s1, s2, r1, r1 + wr}}
			b.Points = append(b.Points, [2]float64{s1, r1 + wr})
			for range 4 {
				b.Points = append(b.Points, [2]float64{s1 + ws*rng.Float64(), r1 + wr*rng.Float64()})
			}
			dc.Boxes = append(dc.Boxes, b)
		}
		out = append(out, dc)
	}
	writeDiagCases(t, path, out)
}

// goldenWritePath returns the path in the environment variable env, where
// a golden-input generator writes; the generator runs only when asked to,
// and is skipped (saying so) otherwise.
func goldenWritePath(t *testing.T, env string) string {
	path := os.Getenv(env)
	if path == "" {
		t.Skip(env + " not set")
	}
	return path
}

// newDiagCase returns the golden case of a point with the multipliers
// that define its psi, without boxes.
func newDiagCase(n int, c, alpha, eps float64) diagCase {
	pr := newProblem(n, c, alpha, eps, DefaultTol)
	return diagCase{N: n, C: c, Alpha: alpha, Eps: eps, K1: pr.k1, K2: pr.k2, LogU: pr.logU, LogE: pr.logE}
}

// writeDiagCases writes golden inputs for testdata/diagonal_golden.py.
func writeDiagCases(t *testing.T, path string, cs []diagCase) {
	data, err := json.MarshalIndent(cs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readDiagGolden(t *testing.T) []diagCase { return readDiagCases(t, diagGolden, len(diagCases)) }

// readDiagCases reads a golden file of want cases.
func readDiagCases(t *testing.T, path string, want int) []diagCase {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cs []diagCase
	if err := json.Unmarshal(data, &cs); err != nil {
		t.Fatal(err)
	}
	if len(cs) != want {
		t.Fatalf("%d cases in %s, want %d", len(cs), path, want)
	}
	return cs
}

// goldenProblem is the problem of case dc with its recorded multipliers.
func goldenProblem(dc diagCase) *problem {
	pr := newProblem(dc.N, dc.C, dc.Alpha, dc.Eps, DefaultTol)
	pr.k1, pr.k2, pr.logU, pr.logE = dc.K1, dc.K2, dc.LogU, dc.LogE
	return pr
}

// lessThan says whether x < the decimal y, exactly.
func lessThan(x float64, y string) bool {
	f, _, err := big.ParseFloat(y, 10, 300, big.ToNearestEven)
	if err != nil {
		panic(err)
	}
	return new(big.Float).SetPrec(300).SetFloat64(x).Cmp(f) < 0
}

// TestDiagonalEnclosure checks that the Taylor form in (s, r) of every
// golden box is finite and never below psi at the box's points.
func TestDiagonalEnclosure(t *testing.T) {
	worst := math.Inf(1)
	bounded, boxes := 0, 0
	for _, dc := range readDiagGolden(t) {
		pr := goldenProblem(dc)
		bd := pr.newBand()
		for _, b := range dc.Boxes {
			ub, _, _, _, ok := pr.diagTaylor(bd, b.B, nil)
			boxes++
			if !ok {
				continue
			}
			bounded++
			for i, x := range b.Points {
				if lessThan(ub, b.Psi[i]) {
					t.Errorf("n=%d c=%g alpha=%g: box %v: bound %.17g below psi %s at %v", dc.N, dc.C, dc.Alpha, b.B, ub, b.Psi[i], x)
				}
				v, _ := strconv.ParseFloat(b.Psi[i], 64)
				worst = math.Min(worst, ub-v)
			}
		}
	}
	if bounded < boxes {
		t.Errorf("the Taylor form bounded %d of %d boxes", bounded, boxes)
	}
	t.Logf("least bound - psi over the points: %.3g (%d boxes)", worst, boxes)
}

// diagThirdMisses counts the golden points where a third derivative of
// psi in (s, r) lies outside the band's range over its box, and the boxes
// where some of F's groups are merged (band.far).
func diagThirdMisses(t *testing.T) (misses, total, merged int) {
	for _, dc := range readDiagGolden(t) {
		pr := goldenProblem(dc)
		bd := pr.newBand()
		for _, b := range dc.Boxes {
			s1, s2, r1, r2 := b.B[0], b.B[1], b.B[2], b.B[3]
			if bd.far(min(s1, s1+r1)) > 0 || bd.far(min(-s2, -s2-r2)) > 0 {
				merged++
			}
			r, ok := pr.thirdRange(bd, b.B)
			if !ok {
				t.Fatalf("box %v: ranges not finite", b.B)
			}
			for i := range b.Points {
				for k := range 4 {
					total++
					if lessThan(r[k].hi, b.D3[i][k]) || !lessThan(r[k].lo, b.D3[i][k]) {
						misses++
						if !testDiagDropMu && !testDiffWrongSign {
							t.Errorf("n=%d c=%g alpha=%g box %v point %v: D3[%d] = %s outside [%g, %g]", dc.N, dc.C, dc.Alpha, b.B, b.Points[i], k, b.D3[i][k], r[k].lo, r[k].hi)
						}
					}
				}
			}
		}
	}
	return misses, total, merged
}

// TestDiagonalThird checks the third derivatives' ranges against mpmath,
// and that two deliberately wrong ones are caught: Phi_s without its
// alpha-sized part, and the difference form (diffThird) with Delta's sign
// flipped.
func TestDiagonalThird(t *testing.T) {
	m, n, merged := diagThirdMisses(t)
	if m != 0 {
		t.Fatalf("%d of %d third derivatives outside their ranges", m, n)
	}
	if merged == 0 {
		t.Fatalf("no box merges F's far groups (bandMerge): the test does not reach the merge")
	}
	t.Logf("%d boxes merge F's far groups", merged)
	for _, k := range []struct {
		name string
		knob *bool
	}{{"Phi_s without mu psi''", &testDiagDropMu}, {"Delta's sign flipped", &testDiffWrongSign}} {
		*k.knob = true
		m, n, _ := diagThirdMisses(t)
		*k.knob = false
		if m == 0 {
			t.Fatalf("%s went unnoticed at all %d derivatives", k.name, n)
		}
		t.Logf("%s: %d of %d third derivatives outside their ranges", k.name, m, n)
	}
}

// TestDiagonalDiffTighter: at the two survey points of diagCases where F's
// terms nearly cancel G's (l of 15 to 50), the difference form narrows
// the third derivatives' ranges (the sum of their widths over the golden
// boxes) by 30 times or more (measured: 3,273 and 53) against the pieces taken one by one
// (diffFrom = +Inf).
func TestDiagonalDiffTighter(t *testing.T) {
	defer func(d float64) { diffFrom = d }(diffFrom)
	for _, dc := range readDiagGolden(t)[7:] {
		pr := goldenProblem(dc)
		bd := pr.newBand()
		var w [2]float64
		for i, from := range []float64{diffFrom, math.Inf(1)} {
			diffFrom = from
			for _, b := range dc.Boxes {
				r, ok := pr.thirdRange(bd, b.B)
				if !ok {
					t.Fatalf("box %v: ranges not finite", b.B)
				}
				for _, x := range r {
					w[i] += x.hi - x.lo
				}
			}
		}
		diffFrom = 0
		t.Logf("n=%d c=%g alpha=%g: widths %.3g with the difference form, %.3g without (%.0f times)", dc.N, dc.C, dc.Alpha, w[0], w[1], w[1]/w[0])
		if !(w[1] > 30*w[0]) {
			t.Errorf("n=%d c=%g alpha=%g: widths %.3g with the difference form, %.3g without", dc.N, dc.C, dc.Alpha, w[0], w[1])
		}
	}
}

// TestBandEpsNoTiling: without a tiling (Certify's default, as in
// conjecture and the grids' benchmark) the band follows the same rule as
// with one (bandEps): at (15, 0.4, 100) it is searched and proved at eps
// 0.05, not searched at eps 0.1.
func TestBandEpsNoTiling(t *testing.T) {
	for _, tc := range []struct {
		eps  float64
		band bool
	}{{0.05, true}, {0.1, false}} {
		pr := newProblem(15, 0.4, 100, tc.eps, DefaultTol)
		bd := pr.diagonal(context.Background(), DefaultMaxBoxes)
		if got := bd != nil && bd.ok; got != tc.band {
			t.Errorf("eps %v: band proved %v, want %v (%d boxes)", tc.eps, got, tc.band, bd.count())
		}
	}
}

// TestDiagonalInherited checks the Taylor form in (s, r) of every golden
// box with the third derivatives' ranges of a box that holds it (its
// parent in the band's search, here the box with twice its length in s),
// as diagTaylor takes them before forming the box's own: never below psi
// at the box's points. The same form with no remainder at all (zero
// ranges, deliberately wrong) must fall below psi at some point.
func TestDiagonalInherited(t *testing.T) {
	misses := func(zero bool) (miss, total int) {
		for _, dc := range readDiagGolden(t) {
			pr := goldenProblem(dc)
			pr.l0 = math.MaxFloat64 / 4 // every bound closes: diagTaylor returns the one with from
			bd := pr.newBand()
			for _, b := range dc.Boxes {
				s1, s2, r1, r2 := b.B[0], b.B[1], b.B[2], b.B[3]
				var from [4]interval
				if !zero {
					var ok bool
					if from, ok = pr.thirdRange(bd, [4]float64{2*s1 - s2, s2, r1, r2}); !ok {
						t.Fatalf("box %v: the parent's ranges are not finite", b.B)
					}
				}
				ub, _, _, t3, ok := pr.diagTaylor(bd, b.B, &from)
				if !ok || t3 != &from {
					t.Fatalf("box %v: the form with the parent's ranges was not taken (ok %v)", b.B, ok)
				}
				for i, x := range b.Points {
					total++
					if lessThan(ub, b.Psi[i]) {
						miss++
						if !zero {
							t.Errorf("n=%d c=%g alpha=%g: box %v: bound %.17g with its parent's ranges below psi %s at %v", dc.N, dc.C, dc.Alpha, b.B, ub, b.Psi[i], x)
						}
					}
				}
			}
		}
		return miss, total
	}
	if _, total := misses(false); total == 0 {
		t.Fatal("no golden points")
	}
	miss, total := misses(true)
	if miss == 0 {
		t.Errorf("the form without its remainder is never below psi at the %d golden points: the test cannot see a wrong remainder", total)
	}
	t.Logf("without the remainder: below psi at %d of %d points", miss, total)
}

// TestDiagonalInheritedSaves runs the band's search at (15, 0.1, 10, 0.05)
// and (1, 0.495, 1000, 0.01) with each box's own third derivatives'
// ranges and with its parent's tried first: both prove the band, and the
// second forms its own ranges on at most 3/4 of the boxes (measured: 1,311
// of 1,914 and 1,727 of 2,688).
func TestDiagonalInheritedSaves(t *testing.T) {
	defer func() { testOwnThird = false }()
	for _, pt := range [][4]float64{{15, 0.1, 10, 0.05}, {1, 0.495, 1000, 0.01}} {
		var thirds, boxes [2]int
		for i, own := range [2]bool{true, false} {
			testOwnThird = own
			pr := newProblem(int(pt[0]), pt[1], pt[2], pt[3], DefaultTol)
			bd := pr.diagonal(context.Background(), DefaultMaxBoxes)
			if bd == nil || !bd.ok || len(bd.slabs) != len(bandSlabs) {
				t.Fatalf("%v own=%v: the band is not proved", pt, own)
			}
			thirds[i], boxes[i] = bd.thirds, bd.boxes
		}
		t.Logf("%v: own ranges formed on %d of %d band boxes, against %d of %d", pt, thirds[1], boxes[1], thirds[0], boxes[0])
		if 4*thirds[1] > 3*boxes[1] {
			t.Errorf("%v: own ranges formed on %d of %d band boxes with the parent's tried first", pt, thirds[1], boxes[1])
		}
	}
}
