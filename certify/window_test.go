package certify

import (
	"bytes"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/bernamp/bernamp/internal/logspace"
)

// refKind returns log of term j of kind k of half h of F_n at (p, q),
// computed independently of the model: from the unpaired sum over
// J = 0..n (half 0 is J = j, half 1 is J = n - j, the middle term of an
// even n halved), with log C(n, J) from Lgamma and log u, log v from
// b_j = c^j (1-c)^(n-j), b'_j = c^(n-j) (1-c)^j directly.
func refKind(n int, c, a float64, p, q coord, h, j, k int) float64 {
	lc, lc1 := math.Log(c), math.Log1p(-c)
	nf, jf := float64(n), float64(j)
	lgn, _ := math.Lgamma(nf + 1)
	lgj, _ := math.Lgamma(jf + 1)
	lgr, _ := math.Lgamma(nf - jf + 1)
	lb := jf*lc + (nf-jf)*lc1  // log b_j, the larger
	lbp := (nf-jf)*lc + jf*lc1 // log b'_j
	lw := lgn - lgj - lgr + lb
	if 2*j == n {
		lw -= math.Ln2
	}
	x, y := p, q
	if h == 1 {
		x, y = coord{p.l1, p.l}, coord{q.l1, q.l}
	}
	lae := func(s, t float64) float64 { // log(e^s + e^t)
		m := math.Max(s, t)
		if math.IsInf(m, -1) {
			return m
		}
		return m + math.Log(math.Exp(s-m)+math.Exp(t-m))
	}
	lu := lae(x.l+lb, x.l1+lbp) - lb
	lv := lae(y.l+lb, y.l1+lbp) - lb
	t := lw + a*lu + (1-a)*lv
	if k == kVal {
		return t
	}
	i, jj := float64(kindIJ[k][0]), float64(kindIJ[k][1])
	lom := math.Log(-math.Expm1(lbp - lb))
	return t - i*lu - jj*lv + (i+jj)*lom
}

// windowCase is one random draw for the window tests.
type windowCase struct {
	n        int
	c, alpha float64
	s, t     float64
}

func windowCases(seed uint64, count int) []windowCase {
	rng := rand.New(rand.NewPCG(seed, 17))
	var cs []windowCase
	for range count {
		n := int(math.Pow(10, 2.61+(5-2.61)*rng.Float64())) // 400 .. 1e5
		c := math.Pow(10, -4+(math.Log10(0.4999)+4)*rng.Float64())
		a := math.Pow(10, 0.0004+2.9996*rng.Float64()) // 1.001 .. 1000
		s, t := 40*rng.Float64()-20, 40*rng.Float64()-20
		switch rng.IntN(8) {
		case 0:
			s = math.Inf(-1)
		case 1:
			t = math.Inf(2*rng.IntN(2) - 1)
		case 2:
			t = s + rng.NormFloat64()/a // near the diagonal
		case 3:
			// Logits of hundreds to thousands: a part of u or v below
			// e^-700, dropped by addShared or summed through the logs.
			t = float64(2*rng.IntN(2)-1) * (600 + 4000*rng.Float64())
		case 4:
			s = -600 - 4000*rng.Float64()
		}
		cs = append(cs, windowCase{n, c, a, s, t})
	}
	return cs
}

// windowViolations evaluates each case windowed (to order 2 and 3 in
// turn) and compares,
// for each half and kind, the terms the window omitted (summed by refKind
// over every j outside it) with the tail bound, and the window's sum with
// refKind's sum over the window. It returns the count of tail bounds below
// the omitted terms and of sums off by more than the reference's rounding.
func windowViolations(t *testing.T, cases []windowCase, logf bool) (tails, sums, windowed int) {
	for ci, wc := range cases {
		m := newModel(wc.n, wc.c, wc.alpha)
		p, q := fromLogit(wc.s), fromLogit(wc.t)
		// Order 2 sums the kinds of degree <= 2, order 3 the value and
		// degree 3; alternate.
		order := 2 + ci%2
		pt := m.eval(p, q, order, true)
		for h := range 2 {
			lo, hi := pt.win[h][0], pt.win[h][1]
			if hi-lo < len(m.lw) {
				windowed++
			}
			for k := range nKinds {
				if !pt.has(k) {
					continue // degree 1 and 2 at order 3: never summed
				}
				in, out := newSum(), newSum()
				for j := range m.lw {
					x := refKind(wc.n, wc.c, wc.alpha, p, q, h, j, k)
					if j >= lo && j < hi {
						in.add(x, 0)
					} else {
						out.add(x, 0)
					}
				}
				// The reference's logs are within ulps of n log(1/c)
				// times alpha: allow that, and nothing near a wrong tail.
				tol := 1e-13*wc.alpha*float64(wc.n)*math.Log(1/wc.c) + 1e-9
				if o := out.log(); o > pt.logTail[h][k]+tol*(1+math.Abs(o)) {
					tails++
					if logf {
						t.Logf("%+v half %d kind %v window [%d,%d): omitted e^%v above bound e^%v", wc, h, kindIJ[k], lo, hi, o, pt.logTail[h][k])
					}
				}
				if w, r := pt.f[h][k].log(), in.log(); math.Abs(w-r) > tol*(1+math.Abs(r)) && !(math.IsInf(w, -1) && math.IsInf(r, -1)) {
					sums++
					if logf {
						t.Logf("%+v half %d kind %v: window sum e^%v, reference e^%v", wc, h, kindIJ[k], w, r)
					}
				}
			}
		}
	}
	return tails, sums, windowed
}

// TestWindowRandom: at random (n, c, alpha, p, q) with n up to 10^5, c in
// [1e-4, 0.4999], alpha in [1.001, 1000] (edges and near-diagonal points
// included), every kind's omitted terms stay below the tail bound and the
// window's sum matches an independent reference; most halves are windowed.
func TestWindowRandom(t *testing.T) {
	count := 60
	if testing.Short() {
		count = 15
	}
	cases := windowCases(1, count)
	tails, sums, windowed := windowViolations(t, cases, true)
	if tails > 0 || sums > 0 {
		t.Errorf("%d tail bounds below the omitted terms, %d sums off, of %d halves x %d kinds", tails, sums, 2*len(cases), nKinds)
	}
	if windowed < len(cases) {
		t.Errorf("only %d of %d halves windowed", windowed, 2*len(cases))
	}
	t.Logf("%d of %d halves windowed", windowed, 2*len(cases))
}

// TestWindowWrongTailCaught: the same comparison catches a tail bound made
// wrong on purpose (the Binomial ratio with log(c/(1-c)) for log((1-c)/c),
// a bug this test caught once; every bound lowered by 3 nats).
func TestWindowWrongTailCaught(t *testing.T) {
	count := 30
	if testing.Short() {
		count = 15
	}
	cases := windowCases(2, count)
	defer func() { testFlipLam, testTailShift = false, 0 }()
	for _, knob := range []struct {
		name string
		set  func()
	}{
		{"log((1-c)/c) with the wrong sign", func() { testFlipLam, testTailShift = true, 0 }},
		{"bound lowered by 3 nats", func() { testFlipLam, testTailShift = false, -3 }},
	} {
		knob.set()
		tails, _, _ := windowViolations(t, cases, false)
		if tails == 0 {
			t.Errorf("%s: not caught", knob.name)
		}
		t.Logf("%s: %d tail bounds below the omitted terms", knob.name, tails)
	}
}

// TestWindowGolden: the windowed halves of F_n, with their tail bounds,
// bracket golden values summed over every term at 60 digits by mpmath
// (testdata/window_golden.py, which says how the file was made).
func TestWindowGolden(t *testing.T) {
	for _, row := range goldenRows(t, "testdata/window_golden.csv") {
		var x [7]float64
		copy(x[:], row.x)
		n, c, a := int(x[0]), x[1], x[2]
		m := newModel(n, c, a)
		pt := m.eval(fromLogit(x[3]), fromLogit(x[4]), 0, true)
		for h := range 2 {
			want := x[5+h]
			lo, hi := pt.f[h][kVal].log(), logspace.Add(pt.f[h][kVal].log(), pt.logTail[h][kVal])
			// The inputs' own rounding (p from its logit) moves log F by
			// ulps times alpha: allow 1e-12 relative, far below any tail.
			tol := 1e-12 * (1 + math.Abs(want)) * (1 + a)
			if want < lo-tol || want > hi+tol {
				t.Errorf("%v half %d: golden %v outside [%v, %v]", row.text, h, want, lo, hi)
			}
			if pt.win[h][1]-pt.win[h][0] >= len(m.lw) {
				t.Errorf("%v half %d: not windowed", row.text, h)
			}
		}
	}
}

// TestHalvesOwnTails: far from the diagonal at large alpha one half of F
// dwarfs the other (at n = 10^4, c = 0.495, alpha = 1000, p near 0 and q
// near 1, half 1 is e^4000 times half 0), so each half must carry its own
// tail bound: with the larger half's tail put on both (as once), the
// paired bound was +Inf on every such box and (10^4, 0.495, 1000, eps)
// stayed open at the box budget. Each box must close, and its bound must
// stay above psi (full sums) at random points of it.
func TestHalvesOwnTails(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	pr := newProblem(10000, 0.495, 1000, 1, 1e-9)
	for range 12 {
		s1, t1 := -8+6*rng.Float64(), 2+6*rng.Float64()
		s2, t2 := s1+0.25, t1+0.25
		pts := []*point{pr.m.eval(fromLogit(s1), fromLogit(t2), 0, true), pr.m.eval(fromLogit(s2), fromLogit(t1), 0, true)}
		for h := range 2 {
			if a, b := pts[0].logTail[h][kVal], pts[0].f[h][kVal].log(); !(a <= b-windowNats) {
				t.Errorf("box [%v,%v]x[%v,%v] half %d: tail e^%v not below its sum e^%v by e^-%d", s1, s2, t1, t2, h, a, b, windowNats)
			}
		}
		ub := pr.paired(pts)
		if !(ub <= pr.l0+pr.tau) {
			t.Errorf("box [%v,%v]x[%v,%v]: paired bound %v not below the target %v", s1, s2, t1, t2, ub, pr.l0+pr.tau)
		}
		for range 3 {
			s, u := s1+(s2-s1)*rng.Float64(), t1+(t2-t1)*rng.Float64()
			// psi there is about -e^3000: compare in log space.
			full := pr.m.eval(fromLogit(s), fromLogit(u), 0, false)
			lf := logspace.Add(full.f[0][kVal].log(), full.f[1][kVal].log()) - pr.logU
			lg := math.Log(pr.k1) + logspace.Add(full.lg1, full.lg2) - pr.logE
			if !(lf < lg) && ub < 0 {
				t.Errorf("(%v, %v): F/U = e^%v not below k1 G/E = e^%v, yet the bound is %v", s, u, lf, lg, ub)
			}
		}
	}
}

// TestSharedMatchesLogs: the windowed sums (addShared: one exp a term,
// the kinds through u^-i v^-j' (1-e)^(i+j') in floats) agree with the same
// windows summed by addTerm (an exp per kind, from logs) within the sum
// of the two error bounds, for every kind of each half at random (n, c,
// alpha, p, q) with n from 400 to 10^5 (the tail bounds are those of the
// window tests; here the window's own sum).
func TestSharedMatchesLogs(t *testing.T) {
	shared, worst := sharedVsLogs(t, windowCases(91, 80))
	if shared < 400 {
		t.Errorf("only %d sums compared", shared)
	}
	t.Logf("%d sums; largest difference %.3g of its bound", shared, worst)
}

// sharedVsLogs compares, at each case (order 2 and 3 in turn), every
// kind's windowed sum with the same window's terms added through the logs
// (addTerm), within the two sums' error bounds; it returns the sums
// compared and the largest difference over its bound.
func sharedVsLogs(t *testing.T, cases []windowCase) (shared int, worst float64) {
	for ci, wc := range cases {
		m := newModel(wc.n, wc.c, wc.alpha)
		p, q := fromLogit(wc.s), fromLogit(wc.t)
		order := 2 + ci%2
		pt := m.eval(p, q, order, true)
		ref := &point{kinds: pt.kinds, corner: pt.corner}
		for h := range 2 {
			for k := range ref.f[h] {
				ref.f[h][k] = newSum()
			}
		}
		pb, qb := coord{p.l1, p.l}, coord{q.l1, q.l}
		for h, xy := range [2][2]coord{{p, q}, {pb, qb}} {
			var lv levels
			for j := pt.win[h][0]; j < pt.win[h][1]; j++ {
				m.addTerm(ref, h, xy, j, &lv)
			}
			for k := range nKinds {
				if !pt.has(k) {
					continue
				}
				a, b := pt.f[h][k], ref.f[h][k]
				la, lb := a.log(), b.log()
				if math.IsInf(la, -1) && math.IsInf(lb, -1) {
					continue
				}
				shared++
				bound := a.relErr() + b.relErr() + 4*eps64
				d := math.Abs(la - lb)
				if !(d <= bound) {
					t.Errorf("%+v half %d kind %v: shared sum e^%v, logs' e^%v: apart by %.3g, bounds %.3g + %.3g", wc, h, kindIJ[k], la, lb, d, a.relErr(), b.relErr())
				}
				worst = math.Max(worst, d/bound)
			}
		}
	}
	return shared, worst
}

// TestMemoSame: the logs of u_j and v_j kept for the tails (uvMemo) and
// by coordinate for the sums (coordLogs) change nothing: at random points
// each half's window, every kind's sum and its tail's bound are the same,
// bit for bit, as with each log formed again where asked, both when the
// coordinates' logs are first formed and when they are read back.
func TestMemoSame(t *testing.T) {
	defer func() { testNoMemo, testNoCoordLogs = false, false }()
	tails := 0
	for ci, wc := range windowCases(92, 80) {
		m := newModel(wc.n, wc.c, wc.alpha)
		p, q := fromLogit(wc.s), fromLogit(wc.t)
		var pts [3]*point
		for i, off := range [3]bool{false, false, true} {
			testNoMemo, testNoCoordLogs = off, off
			pts[i] = m.eval(p, q, 2+ci%2, true)
		}
		if len(m.coords) == 0 {
			t.Fatalf("%+v: no coordinate's logs kept", wc)
		}
		a := pts[2]
		for _, b := range pts[:2] {
			if a.win != b.win || a.logTail != b.logTail || a.f != b.f {
				t.Errorf("%+v: with the kept logs windows %v, tails %v; without %v, %v", wc, b.win, b.logTail, a.win, a.logTail)
			}
		}
		for h := range a.logTail {
			if !math.IsInf(a.logTail[h][kVal], -1) {
				tails++
			}
		}
	}
	if tails < 40 {
		t.Errorf("only %d windowed halves", tails)
	}
}

// TestKindsGolden: every kind's sum of each half, windowed (addShared)
// and full (addTerm), brackets golden values summed over every term at 60
// digits by mpmath (testdata/kinds_golden.py, which says how the file was
// made) within its own claimed error: [S (1 - relErr), (S + tail) (1 +
// relErr)], S the sum kept and tail the bound on the omitted terms. The
// point is given by its float64 logs, which the reference reads exactly,
// so no allowance is made for the inputs' rounding: a term's error bound
// too small by a few ulps of its magnitudes shows.
func TestKindsGolden(t *testing.T) {
	checked := 0
	for _, gr := range goldenRows(t, "testdata/kinds_golden.csv") {
		var x [11]float64
		copy(x[:], gr.x)
		row := gr.text
		m := newModel(int(x[0]), x[1], x[2])
		p, q := coord{x[3], x[4]}, coord{x[5], x[6]}
		h, k := int(x[7]), -1
		for kk, ij := range kindIJ {
			if ij == [2]int{int(x[8]), int(x[9])} {
				k = kk
			}
		}
		want := x[10]
		for _, order := range []int{2, 3} {
			for _, window := range []bool{true, false} {
				pt := m.eval(p, q, order, window)
				if !pt.has(k) {
					continue
				}
				s := pt.f[h][k]
				re := s.relErr()
				lo := s.log() + math.Log1p(-re)
				hi := logspace.Add(s.log(), pt.logTail[h][k]) + math.Log1p(re)
				// The golden value's 30 digits.
				tol := 1e-28 * (1 + math.Abs(want))
				if want < lo-tol || want > hi+tol {
					t.Errorf("%v order %d window %v: golden %v outside [%v, %v] (relErr %.3g; off by %.3g)", row[:10], order, window, want, lo, hi, re, math.Max(lo-want, want-hi))
				}
				checked++
			}
		}
	}
	if checked < 300 {
		t.Errorf("only %d sums checked", checked)
	}
}

// goldenRow is a row of a golden CSV file: its fields and their values.
type goldenRow struct {
	text []string
	x    []float64
}

// goldenRows reads a golden CSV file, its header line skipped.
func goldenRows(t *testing.T, path string) []goldenRow {
	t.Helper()
	data, err := os.ReadFile(path)
	var rows [][]string
	if err == nil {
		rows, err = csv.NewReader(bytes.NewReader(data)).ReadAll()
	}
	if err != nil || len(rows) < 2 {
		t.Fatalf("%s: golden rows: %d, %v", path, len(rows), err)
	}
	var out []goldenRow
	for _, row := range rows[1:] {
		r := goldenRow{text: row, x: make([]float64, len(row))}
		for i, f := range row {
			if r.x[i], err = strconv.ParseFloat(f, 64); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		out = append(out, r)
	}
	return out
}

// TestWindowSecondPeak: with p and q near 0 at large alpha the value
// terms have a peak near the turn of v_j (e_j about q) far larger than the
// one at the Binomial mode, across a dip of thousands of nats. The window
// starts at the larger peak (turn) and stays narrow; from the mode alone
// (testOneStart) it widened over most j. Its omitted terms stay below
// the tail bounds and its sums match the reference (windowViolations).
func TestWindowSecondPeak(t *testing.T) {
	var cases []windowCase
	for _, st := range [][2]float64{{-16, -32}, {-64, -128}, {-12, -16}, {-10, -12}} {
		cases = append(cases, windowCase{10000, 0.495, 1000, st[0], st[1]})
	}
	widths := func() (most int) {
		for _, wc := range cases {
			pt := newModel(wc.n, wc.c, wc.alpha).eval(fromLogit(wc.s), fromLogit(wc.t), 0, true)
			most = max(most, pt.win[0][1]-pt.win[0][0])
		}
		return most
	}
	if w := widths(); w > 400 { // 87 to 361 measured
		t.Errorf("half 0's window holds up to %d terms, want at most 400", w)
	}
	if tails, sums, _ := windowViolations(t, cases, true); tails > 0 || sums > 0 {
		t.Errorf("%d tail bounds below the omitted terms, %d sums off", tails, sums)
	}
	testOneStart = true
	defer func() { testOneStart = false }()
	if w := widths(); w <= 400 {
		t.Errorf("from the mode alone the window holds up to %d terms: the case no longer tests the second start", w)
	}
}

// TestValueTermsReference: the value terms splitPaired takes (valueTerms:
// kept, or formed anew as the windowed sums form them, inside the window
// and 20 terms beyond each end) lie within their error bounds of an
// independent reference (refKind), at random windowed points.
func TestValueTermsReference(t *testing.T) {
	bad, checked := 0, 0
	for _, wc := range windowCases(3, 40) {
		m := newModel(wc.n, wc.c, wc.alpha)
		p, q := fromLogit(wc.s), fromLogit(wc.t)
		pt := m.eval(p, q, 0, true)
		for h := range 2 {
			xy := halfArgs(pt, h)
			vt := m.valueTerms(pt, h, xy)
			lo, hi := max(pt.win[h][0]-20, 0), min(pt.win[h][1]+20, len(m.lw))
			for j := lo; j < hi; j++ {
				x, r := vt.at(m, j, xy)
				ref := refKind(wc.n, wc.c, wc.alpha, p, q, h, j, kVal)
				if math.IsInf(ref, -1) && math.IsInf(x, -1) {
					continue
				}
				checked++
				tol := 1e-13*wc.alpha*float64(wc.n)*math.Log(1/wc.c) + 1e-9
				if !(math.Abs(x-ref) <= r+tol*(1+math.Abs(ref))) {
					if bad++; bad <= 5 {
						t.Errorf("%+v half %d term %d: %v (error bound %v), reference %v", wc, h, j, x, r, ref)
					}
				}
			}
		}
	}
	if bad > 0 || checked < 1000 {
		t.Errorf("%d of %d terms off", bad, checked)
	}
	t.Logf("%d terms checked", checked)
}

// TestSharedSplit: at points with p and q near 0, where the windowed
// sums' u_j and v_j fall below 1/sharedMax (down to 1e-180 at (10^4,
// 0.4737, 1.0015)), the kinds' terms go through the shared path with the
// binary exponents split off (math.Ldexp); the sums and tails still
// match the independent reference (windowViolations) and the logs' sums
// within their error bounds (sharedVsLogs), and they are not the sums
// without the split bit for bit (testSharedMax), so it was taken.
func TestSharedSplit(t *testing.T) {
	var cases []windowCase
	for _, st := range [][2]float64{{-250, -260}, {-300, -350}, {-400, -420}, {-420, -400}, {-500, -300}} {
		cases = append(cases, windowCase{10000, 0.4737, 1.0015, st[0], st[1]})
		cases = append(cases, windowCase{3000, 0.45, 2.5, st[0], st[1]})
	}
	if tails, sums, _ := windowViolations(t, cases, true); tails > 0 || sums > 0 {
		t.Errorf("%d tail bounds below the omitted terms, %d sums off", tails, sums)
	}
	shared, worst := sharedVsLogs(t, cases)
	t.Logf("%d sums against the logs'; largest difference %.3g of its bound", shared, worst)
	differ := 0
	for _, wc := range cases {
		m := newModel(wc.n, wc.c, wc.alpha)
		a := m.eval(fromLogit(wc.s), fromLogit(wc.t), orderAll, true)
		testSharedMax = true
		b := newModel(wc.n, wc.c, wc.alpha).eval(fromLogit(wc.s), fromLogit(wc.t), orderAll, true)
		testSharedMax = false
		if a.f != b.f {
			differ++
		}
	}
	if differ < len(cases)/2 {
		t.Errorf("the split path changed the sums at %d of %d points only", differ, len(cases))
	}
	t.Logf("the split path changed the sums at %d of %d points", differ, len(cases))
}
