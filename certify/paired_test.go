package certify

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The paired enclosure where F and k1 G nearly cancel at huge values
// (issue 33's survey points): at (17, 0.003509, 137.788, 48.29) F's and
// k1 G's second halves agree to 1e-9 relative at q within e^-48 of 1,
// where both are up to e^30 and log g and log E are about 6,600, and at
// (12, 0.4101, 1.00263, 10.12) near q = 1 - e^-277. The golden file holds
// psi at 60 digits (testdata/diagonal_golden.py, the same direct sum; its
// points are (s, r = t - s)) at each box's corners and random points,
// written by TestPairedGoldenInputs with PAIRED_GOLDEN_WRITE set.

const pairedGolden = "testdata/paired_golden.json"

var pairedCases = []struct {
	n             int
	c, alpha, eps float64
	s, t          [2]float64 // ranges of the boxes' lower ends
	w             [2]float64 // log10 range of their widths
	closes        bool       // the paired bound must close most boxes (there it is what proves the point)
}{
	{17, 0.003509, 137.788, 48.29, [2]float64{-30, -1}, [2]float64{48.2, 48.7}, [2]float64{-5, -1}, true},
	{12, 0.4101, 1.00263, 10.12, [2]float64{-16, -4}, [2]float64{256, 300}, [2]float64{-6, 0.5}, false},
	// Around the tangent point (-48.29, 48.29), where psi = l0 and a bound
	// without its margins falls below psi.
	{17, 0.003509, 137.788, 48.29, [2]float64{-48.2901, -48.2899}, [2]float64{48.2899, 48.2901}, [2]float64{-9, -5}, false},
}

func TestPairedGoldenInputs(t *testing.T) {
	path := goldenWritePath(t, "PAIRED_GOLDEN_WRITE")
	rng := rand.New(rand.NewPCG(17, 138))
	var out []diagCase
	for _, pc := range pairedCases {
		dc := newDiagCase(pc.n, pc.c, pc.alpha, pc.eps)
		for range 20 {
			ws := math.Pow(10, pc.w[0]+(pc.w[1]-pc.w[0])*rng.Float64())
			wt := math.Pow(10, pc.w[0]+(pc.w[1]-pc.w[0])*rng.Float64())
			s1 := pc.s[0] + (pc.s[1]-pc.s[0])*rng.Float64()
			t1 := pc.t[0] + (pc.t[1]-pc.t[0])*rng.Float64()
			b := diagBox{B: [4]float64{s1, s1 + ws, t1, t1 + wt}}
			for k := range 8 {
				s, u := s1+ws*rng.Float64(), t1+wt*rng.Float64()
				if k < 4 {
					s, u = b.B[k%2], b.B[2+k/2]
				}
				b.Points = append(b.Points, [2]float64{s, u - s})
			}
			dc.Boxes = append(dc.Boxes, b)
		}
		out = append(out, dc)
	}
	writeDiagCases(t, path, out)
}

// TestPairedGolden checks that the paired bound of every golden box is
// never below psi at the box's points, and that in the first case it is
// below the target l0 + tau on most boxes (the tightness that proves that
// point: with every log padded by alpha ulps it closed 5 of the 20).
func TestPairedGolden(t *testing.T) {
	cs := readDiagCases(t, pairedGolden, len(pairedCases))
	for ci, dc := range cs {
		pr := goldenProblem(dc)
		closed := 0
		for _, b := range dc.Boxes {
			s1, s2, t1, t2 := b.B[0], b.B[1], b.B[2], b.B[3]
			pts := []*point{pr.m.eval(fromLogit(s1), fromLogit(t2), 0, true), pr.m.eval(fromLogit(s2), fromLogit(t1), 0, true)}
			ub := pr.paired(pts)
			if ub <= pr.l0+pr.tau {
				closed++
			}
			for i, x := range b.Points {
				if lessThan(ub, b.Psi[i]) {
					t.Errorf("n=%d c=%g alpha=%g: box %v: paired bound %.17g below psi %s at (s, r) %v", dc.N, dc.C, dc.Alpha, b.B, ub, b.Psi[i], x)
				}
			}
		}
		if pairedCases[ci].closes && closed < len(dc.Boxes)/2 {
			t.Errorf("n=%d c=%g alpha=%g: the paired bound closes %d of %d boxes", dc.N, dc.C, dc.Alpha, closed, len(dc.Boxes))
		}
		t.Logf("n=%d c=%g alpha=%g: %d of %d boxes closed by the paired bound", dc.N, dc.C, dc.Alpha, closed, len(dc.Boxes))
	}
}
