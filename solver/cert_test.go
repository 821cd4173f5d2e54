package solver

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/corner"
)

// certPoint is a feasible pair in the symmetry domain with its log output
// ratios and log F, computed with FullLogF and corner.Apply (no code of
// the certificate).
type certPoint struct {
	x, y []float64
	lt   []float64
	logF float64
}

// certFeasible reports whether (x, y) satisfies both constraints.
func certFeasible(alpha, eps float64, x, y []float64) bool {
	e := (alpha - 1) * eps
	return logDiv(alpha, x, y) <= e && logDiv(alpha, y, x) <= e
}

// certToBoundary returns x and the point y' = x + s (y - x) with s the
// largest in [0, 1] (to 40 bisection steps) keeping the pair feasible:
// P = Q is always feasible, and the maximum of F sits on the boundary.
func certToBoundary(alpha, eps float64, x, y []float64) []float64 {
	at := func(s float64) []float64 {
		v := make([]float64, len(x))
		for i := range v {
			v[i] = x[i] + s*(y[i]-x[i])
		}
		return v
	}
	if certFeasible(alpha, eps, x, at(1)) {
		return at(1)
	}
	lo, hi := 0.0, 1.0
	for range 40 {
		mid := (lo + hi) / 2
		if certFeasible(alpha, eps, x, at(mid)) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return at(lo)
}

// certCanonical maps (x, y) into the symmetry domain of the search by the
// symmetries of the program: flip the coordinates set in the heaviest
// corner of x (so x_0 is largest), then permute coordinates so the
// weight-one corners' masses decrease with the bit position (x_001 >=
// x_010 >= ...).
func certCanonical(d int, x, y []float64) ([]float64, []float64) {
	n := 1 << d
	top := 0
	for z := range n {
		if x[z] > x[top] {
			top = z
		}
	}
	fx, fy := make([]float64, n), make([]float64, n)
	for z := range n {
		fx[z], fy[z] = x[z^top], y[z^top]
	}
	pos := make([]int, d) // bit positions, heaviest weight-one corner first
	for i := range pos {
		pos[i] = i
	}
	slices.SortStableFunc(pos, func(a, b int) int {
		switch {
		case fx[1<<a] > fx[1<<b]:
			return -1
		case fx[1<<a] < fx[1<<b]:
			return 1
		}
		return 0
	})
	px, py := make([]float64, n), make([]float64, n)
	for z := range n {
		nz := 0
		for i, p := range pos {
			nz |= (z >> p & 1) << i // new bit i is old bit pos[i]
		}
		px[nz], py[nz] = fx[z], fy[z]
	}
	return px, py
}

func certMakePoint(ch *corner.Channel, alpha float64, x, y []float64) certPoint {
	u, v := make([]float64, ch.Outputs()), make([]float64, ch.Outputs())
	ch.Apply(u, x, nil)
	ch.Apply(v, y, nil)
	lt := make([]float64, len(u))
	for m := range u {
		lt[m] = math.Log(u[m]) - math.Log(v[m])
	}
	return certPoint{x: x, y: y, lt: lt, logF: FullLogF(ch, alpha, x, y)}
}

// certRandomPoints returns n feasible pairs in the symmetry domain: half
// random pairs pushed to the boundary, half perturbations of the Theorem 4
// pair (mass p on 0^d and 1-p on 1^d, Q mirrored) at scales 1e-1 to 1e-8.
func certRandomPoints(rnd *rand.Rand, d, k int, c, alpha, eps float64, n int) []certPoint {
	ch := corner.Full(d, k, c)
	nc := 1 << d
	p := bounds.P(alpha, eps)
	var out []certPoint
	for i := range n {
		var x, y []float64
		if i%2 == 0 {
			x, y = randomMasses(rnd, nc), randomMasses(rnd, nc)
			if i%4 == 0 { // sparse supports, like the optimum's
				for z := range nc {
					if rnd.IntN(2) == 0 {
						x[z] *= 1e-6
						y[z] *= 1e-6
					}
				}
				normalize(x)
				normalize(y)
			}
		} else {
			x, y = make([]float64, nc), make([]float64, nc)
			x[0], x[nc-1] = p, 1-p
			y[0], y[nc-1] = 1-p, p
			scale := math.Pow(10, -1-float64(rnd.IntN(8)))
			nx, ny := randomMasses(rnd, nc), randomMasses(rnd, nc)
			for z := range nc {
				x[z] = (1-scale)*x[z] + scale*nx[z]
				y[z] = (1-scale)*y[z] + scale*ny[z]
			}
		}
		y = certToBoundary(alpha, eps, x, y)
		if !certFeasible(alpha, eps, x, y) {
			continue
		}
		x, y = certCanonical(d, x, y)
		out = append(out, certMakePoint(ch, alpha, x, y))
	}
	return out
}

type certTraced struct {
	lo, hi []float64
	bound  float64
	dpi    int // data-processing rows its children inherit
}

// certTrace runs the search and returns every box it bounded.
func certTrace(d, k int, c, alpha, eps, lower, tol float64, boxes int) ([]certTraced, *certRun) {
	r := newCertRun(d, k, c, alpha, eps, lower, tol, &CertSettings{MaxBoxes: boxes, Workers: 2})
	var out []certTraced
	r.trace = func(b *certBox) {
		out = append(out, certTraced{append([]float64(nil), b.lo...), append([]float64(nil), b.hi...), b.bound, len(b.dpi)})
	}
	r.run(context.Background())
	return out, r
}

// The bound of every box of the search is at least log F at every feasible
// point of the symmetry domain whose output ratios lie in the box:
// hundreds of random points, half near the Theorem 4 pair, checked against
// every box of the tree that contains them.
func TestCertBoxBoundsValid(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, tc := range []struct {
		d, k           int
		c, alpha, eps  float64
		boxes, nPoints int
		minChecks      int
		below          float64 // lower = LB - below
		minDPI         int     // boxes that pass data-processing rows on (none needed at two points)
	}{
		{1, 3, 0.1, 5, 1, 400, 300, 1000, 0, 10},
		{2, 1, 0.1, 5, 1, 3000, 400, 3000, 0, 10},
		{2, 1, 0.15, 7, 0.8, 3000, 400, 3000, 0, 10},
		{2, 1, 0.1, 50, 2, 3000, 400, 3000, 0, 0},
		{2, 2, 0.1, 5, 0.5, 20000, 400, 3000, 0, 10},
		{2, 1, 0.3, 5, 1, 3000, 400, 3000, 1e-3, 0},
		{3, 1, 0.2, 4, 1.5, 15000, 300, 2000, 0, 10},
	} {
		lb := bounds.Lower(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		// A tolerance of 1e-12 keeps the boxes around the optimum open
		// and splitting, so the trace holds deep boxes there.
		boxes, _ := certTrace(tc.d, tc.k, tc.c, tc.alpha, tc.eps, lb-tc.below, 1e-12, tc.boxes)
		pts := certRandomPoints(rnd, tc.d, tc.k, tc.c, tc.alpha, tc.eps, tc.nPoints)
		if len(pts) < tc.nPoints*9/10 {
			t.Fatalf("%+v: only %d feasible points", tc, len(pts))
		}
		withDPI := 0
		for _, b := range boxes {
			if b.dpi > 0 {
				withDPI++
			}
		}
		if withDPI < tc.minDPI {
			t.Errorf("%+v: %d boxes passed on a data-processing row, want >= %d", tc, withDPI, tc.minDPI)
		}
		checks, nearOpt, tight := 0, 0, 0
		for _, pt := range pts {
			for _, b := range boxes {
				in := true
				for m, l := range pt.lt {
					if l < b.lo[m] || l > b.hi[m] {
						in = false
						break
					}
				}
				if !in {
					continue
				}
				checks++
				if b.bound < pt.logF-1e-12*math.Max(1, math.Abs(pt.logF)) {
					t.Fatalf("%+v: box bound %.15g below log F %.15g at x=%v y=%v (t in [%v, %v])", tc, b.bound, pt.logF, pt.x, pt.y, b.lo, b.hi)
				}
				if pt.logF > (lb-1e-4)*(tc.alpha-1) {
					nearOpt++
				}
				if b.bound-pt.logF < 1e-6 {
					tight++
				}
			}
		}
		t.Logf("%+v: %d checks, %d near the optimum, %d within 1e-6, %d of %d boxes with data-processing rows", tc, checks, nearOpt, tight, withDPI, len(boxes))
		if checks < tc.minChecks {
			t.Errorf("%+v: only %d (point, box) checks", tc, checks)
		}
		if nearOpt == 0 {
			t.Errorf("%+v: no check at a point within 1e-4 of LB", tc)
		}
	}
}

// The symmetries used for the search domain map the program to itself:
// F and both constraints are unchanged by coordinate permutations and
// flips applied to P and Q together (not by swapping P and Q).
func TestCertSymmetry(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		d := 1 + trial%3
		k := 1 + trial%2
		ch := corner.Full(d, k, 0.1)
		const alpha = 5
		x, y := randomMasses(rnd, 1<<d), randomMasses(rnd, 1<<d)
		cx, cy := certCanonical(d, x, y)
		f0, f1 := FullLogF(ch, alpha, x, y), FullLogF(ch, alpha, cx, cy)
		if math.Abs(f0-f1) > 1e-12*math.Max(1, math.Abs(f0)) {
			t.Fatalf("d=%d: F changed from %v to %v", d, f0, f1)
		}
		if g0, g1 := logDiv(alpha, x, y), logDiv(alpha, cx, cy); math.Abs(g0-g1) > 1e-12*math.Max(1, math.Abs(g0)) {
			t.Fatalf("d=%d: R(P||Q) changed from %v to %v", d, g0, g1)
		}
		if g0, g1 := logDiv(alpha, y, x), logDiv(alpha, cy, cx); math.Abs(g0-g1) > 1e-12*math.Max(1, math.Abs(g0)) {
			t.Fatalf("d=%d: R(Q||P) changed from %v to %v", d, g0, g1)
		}
		// The canonical point satisfies the symmetry rows of the search.
		for _, row := range newCertProgram(d, k, 0.1, alpha, 1, 0).sym {
			if cx[row[0]] > cx[row[1]] {
				t.Fatalf("d=%d: canonical x=%v violates the symmetry row x_%d <= x_%d", d, cx, row[0], row[1])
			}
		}
		if cx[0] < slices.Max(cx) {
			t.Fatalf("d=%d: canonical x_0 %v is not the largest of %v", d, cx[0], cx)
		}
		for l := 0; l+1 < d; l++ {
			if cx[1<<l] < cx[1<<(l+1)] {
				t.Fatalf("d=%d: weight-one masses not sorted: %v", d, cx)
			}
		}
	}
}

// With the closing level below LB the boxes around the Theorem 4 pair can
// never close: the search must end open, with Upper at or above LB.
func TestCertTargetBelowLB(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k          int
		c, alpha, eps float64
	}{{1, 2, 0.1, 5, 1}, {2, 1, 0.1, 5, 1}, {2, 1, 0.1, 50, 2}, {2, 2, 0.3, 5, 1}} {
		lb := bounds.Lower(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		for _, below := range []float64{1e-3, 1e-7} {
			cert, err := Certify(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.eps, lb-below, &CertSettings{Tol: below / 10, MaxBoxes: 4000})
			if err != nil {
				t.Fatal(err)
			}
			if cert.Complete || cert.Open == 0 {
				t.Errorf("%+v, lower LB-%g: closed (%+v)", tc, below, cert)
			}
			if cert.Upper < lb || cert.OpenBound < lb {
				t.Errorf("%+v, lower LB-%g: upper %.15g, open bound %.15g below LB %.15g", tc, below, cert.Upper, cert.OpenBound, lb)
			}
		}
	}
}

// At d = 1 the output-ratio search agrees with One's polygon search.
func TestCertAgreesWithOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		k            int
		c, alpha, ep float64
	}{
		{1, 0.1, 5, 0.5}, {1, 0.1, 5, 2}, {2, 0.1, 5, 1}, {4, 0.1, 5, 1}, {4, 0.3, 2, 0.3},
		{8, 0.1, 5, 3}, {3, 0.2, 1.5, 0.05}, {2, 0.45, 20, 4}, {1, 0.01, 50, 0.1}, {6, 0.1, 50, 2},
	} {
		r, err := One(context.Background(), tc.k, tc.c, tc.alpha, tc.ep, nil)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := Certify(context.Background(), 1, tc.k, tc.c, tc.alpha, tc.ep, r.Lower, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !cert.Complete || r.Status != Certified || math.Abs(cert.Upper-r.Upper) > 1e-9 {
			t.Errorf("%+v: Certify %.15g (complete %v), One %.15g (%v)", tc, cert.Upper, cert.Complete, r.Upper, r.Status)
		}
	}
}

// The certified value at the d = 2 points of math.md equals LB within 1e-9
// (Post = LB there, proved up to the rounding model), and the certificate
// does not depend on the number of workers.
func TestCertMathPoints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k          int
		c, alpha, eps float64
	}{{2, 1, 0.15, 7, 0.8}, {2, 1, 0.1, 5, 0.5}, {2, 1, 0.1, 5, 1}, {2, 1, 0.1, 5, 2}, {2, 1, 0.1, 5, 3}} {
		lb := bounds.Lower(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		var first *Certificate
		for _, w := range []int{1, 3} {
			cert, err := Certify(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.eps, lb, &CertSettings{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			if !cert.Complete || cert.Upper < lb || cert.Upper-lb > 1e-9 {
				t.Errorf("%+v workers %d: upper %.15g, LB %.15g, complete %v", tc, w, cert.Upper, lb, cert.Complete)
			}
			if ub := bounds.UpperBound(tc.d, tc.k, tc.c, tc.alpha, tc.eps).Value(); cert.Upper > ub {
				t.Errorf("%+v: upper %v above the closed form %v", tc, cert.Upper, ub)
			}
			if first == nil {
				first = cert
			} else if cert.Upper != first.Upper || cert.Boxes != first.Boxes || cert.LPs != first.LPs {
				t.Errorf("%+v: workers 1 gave %+v, workers %d gave %+v", tc, *first, w, *cert)
			}
		}
	}
}

// A cancelled or box-limited search returns a valid, honest certificate.
func TestCertStoppedEarly(t *testing.T) {
	t.Parallel()
	const d, k, c, alpha, eps = 2, 2, 0.1, 5, 1
	lb := bounds.Lower(d, k, c, alpha, eps)
	ub := bounds.UpperBound(d, k, c, alpha, eps).Value()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, run := range []struct {
		ctx context.Context
		s   *CertSettings
	}{{ctx, nil}, {context.Background(), &CertSettings{MaxBoxes: 50}}} {
		cert, err := Certify(run.ctx, d, k, c, alpha, eps, lb, run.s)
		if err != nil {
			t.Fatal(err)
		}
		if cert.Complete || cert.Open == 0 || cert.Upper > ub || cert.Upper < lb {
			t.Errorf("stopped search: %+v (LB %v, closed form %v)", *cert, lb, ub)
		}
	}
}

func TestCertifyInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k          int
		c, alpha, eps float64
		lower         float64
		s             *CertSettings
		tooLarge      bool
	}{
		{0, 1, 0.1, 5, 1, 0, nil, false},
		{2, 0, 0.1, 5, 1, 0, nil, false},
		{2, 1, 0.5, 5, 1, 0, nil, false},
		{2, 1, 0.1, 1, 1, 0, nil, false},
		{2, 1, 0.1, 5, -1, 0, nil, false},
		{2, 1, 0.1, 5, math.Inf(1), 0, nil, false},
		{2, 1, 0.1, 5, 1, math.NaN(), nil, false},
		{2, 1, 0.1, 5, 1, 0, &CertSettings{Tol: -1}, false},
		{2, 1, 0.1, 5, 1, 0, &CertSettings{Tol: math.NaN()}, false},
		{2, 1, 0.1, 5, 1, 0, &CertSettings{MaxBoxes: -1}, false},
		{6, 1, 0.1, 5, 1, 0, nil, true},
		{3, 30, 0.1, 5, 1, 0, nil, true},
		{2, math.MaxInt, 0.1, 5, 1, 0, nil, true},
	} {
		_, err := Certify(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.eps, tc.lower, tc.s)
		if !errors.Is(err, ErrInput) {
			t.Errorf("%+v: error %v, want ErrInput", tc, err)
		}
		if tc.tooLarge != errors.Is(err, ErrTooLarge) {
			t.Errorf("%+v: error %v, ErrTooLarge expected %v", tc, err, tc.tooLarge)
		}
	}
	// Where the closed forms already meet, no search is needed at any size.
	cert, err := Certify(context.Background(), 8, 8, 0.1, 5, 0, 0, nil)
	if err != nil || !cert.Complete || cert.Upper != 0 {
		t.Errorf("eps = 0: %+v, %v", cert, err)
	}
}

// At the edges of the domain (orders near 1 and up to 1000, eps up to 50,
// c near 0 and 1/2) a short search returns a valid certificate: no NaN,
// between LB and the closed form.
func TestCertEdges(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d, k          int
		c, alpha, eps float64
	}{
		{2, 1, 0.1, 1.01, 1}, {2, 1, 0.1, 1000, 1}, {2, 1, 0.1, 5, 50}, {2, 1, 0.1, 5, 1e-6},
		{2, 1, 0.49, 5, 1}, {2, 1, 1e-4, 5, 1}, {2, 2, 1e-4, 50, 3}, {1, 40, 0.01, 50, 5},
		{3, 1, 0.1, 200, 2}, {2, 3, 0.3, 1.5, 0.01}, {4, 1, 0.2, 4, 1.5},
	} {
		lb := bounds.Lower(tc.d, tc.k, tc.c, tc.alpha, tc.eps)
		ub := bounds.UpperBound(tc.d, tc.k, tc.c, tc.alpha, tc.eps).Value()
		cert, err := Certify(context.Background(), tc.d, tc.k, tc.c, tc.alpha, tc.eps, lb, &CertSettings{MaxBoxes: 2000})
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(cert.Upper) || cert.Upper < lb || cert.Upper > ub || math.IsNaN(cert.OpenBound) {
			t.Errorf("%+v: %+v (LB %v, closed form %v)", tc, *cert, lb, ub)
		}
		if cert.Complete && cert.Upper-lb > DefaultTol {
			t.Errorf("%+v: complete with gap %v", tc, cert.Upper-lb)
		}
	}
}
