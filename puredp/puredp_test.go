package puredp

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/internal/logspace"
	"github.com/bernamp/bernamp/internal/testref"
)

// refRow is a row of testdata/puredp: inputs and the reference eps'.
type refRow struct {
	d, k   int
	c, eps float64
	want   float64
}

// readRef returns the rows of a table of testdata/puredp with columns
// d,k,c,eps first and the reference eps' in column wantCol, failing the
// test when there are fewer than minRows.
func readRef(t *testing.T, path string, wantCol, minRows int) []refRow {
	t.Helper()
	var rows []refRow
	for _, rec := range testref.Rows(t, path, minRows) {
		d, err1 := strconv.Atoi(rec[0])
		k, err2 := strconv.Atoi(rec[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: row %v", path, rec)
		}
		rows = append(rows, refRow{d: d, k: k, c: testref.Float(t, rec[2]), eps: testref.Float(t, rec[3]), want: testref.Float(t, rec[wantCol])})
	}
	return rows
}

// TestAmplifyRef checks the closed form and its enclosure against 30-digit
// mpmath values at the extremes (testdata/puredp/gen_ref.py): c down to
// 1e-6 and up to 0.4999, d k up to 10^4, eps from 1e-8 to 50 and +Inf.
func TestAmplifyRef(t *testing.T) {
	rows := readRef(t, "../testdata/puredp/ref.csv", 4, 150)
	for _, r := range rows {
		l, err := Amplify(r.d, r.k, r.c, r.eps)
		if err != nil {
			t.Errorf("Amplify(%d, %d, %v, %v): %v", r.d, r.k, r.c, r.eps, err)
			continue
		}
		// The reference is rounded to float64 (half an ulp); Lower and
		// Upper must enclose the exact value, so compare with that slack.
		slack := math.Abs(r.want) * 0x1p-53
		if !(l.Lower <= r.want+slack && r.want-slack <= l.Upper) {
			t.Errorf("Amplify(%d, %d, %v, %v) = [%v, %v], want to contain %v", r.d, r.k, r.c, r.eps, l.Lower, l.Upper, r.want)
		}
		if rel := math.Abs(l.Eps-r.want) / r.want; rel > 1e-13 {
			t.Errorf("Amplify(%d, %d, %v, %v).Eps = %v, want %v (rel err %.2g)", r.d, r.k, r.c, r.eps, l.Eps, r.want, rel)
		}
		if rel := (l.Upper - l.Lower) / r.want; rel > 1e-12 {
			t.Errorf("Amplify(%d, %d, %v, %v): enclosure [%v, %v] is %.2g relative wide", r.d, r.k, r.c, r.eps, l.Lower, l.Upper, rel)
		}
	}
}

// TestExactLP checks Amplify and LP against exact rational linear programs
// over grids of theta with interior points (testdata/puredp/gen_lp.py), the
// program of the issue solved with no corner reduction.
func TestExactLP(t *testing.T) {
	rows := readRef(t, "../testdata/puredp/lp_exact.csv", 5, 10)
	for _, r := range rows {
		l, err := Amplify(r.d, r.k, r.c, r.eps)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(l.Eps-r.want) / r.want; rel > 1e-13 {
			t.Errorf("Amplify(%d, %d, %v, %v) = %v, exact LP %v (rel %.2g)", r.d, r.k, r.c, r.eps, l.Eps, r.want, rel)
		}
		res, err := LP(r.d, r.k, r.c, r.eps)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(res.Eps-r.want) / r.want; rel > 1e-9 {
			t.Errorf("LP(%d, %d, %v, %v) = %v, exact LP %v (rel %.2g)", r.d, r.k, r.c, r.eps, res.Eps, r.want, rel)
		}
	}
}

// TestLPMatchesClosedForm solves the corner LPs over a grid and checks the
// optimum, the maximizer's own ratio and its feasibility.
func TestLPMatchesClosedForm(t *testing.T) {
	n := 0
	for _, c := range []float64{0.01, 0.1, 0.3, 0.45} {
		for d := 1; d <= 4; d++ {
			for _, k := range []int{1, 2, 5} {
				for _, eps := range []float64{1e-6, 0.1, 1, 3, 10} {
					if testing.Short() && (d > 2 || k > 2) {
						continue
					}
					if float64(d*k)*logspace.LogOdds(c) > 25 {
						continue // g spans more than e^25: outside the LP's range
					}
					n++
					l, err := Amplify(d, k, c, eps)
					if err != nil {
						t.Fatal(err)
					}
					r, err := LP(d, k, c, eps)
					if err != nil {
						t.Fatalf("LP(%d, %d, %v, %v): %v", d, k, c, eps, err)
					}
					if rel := math.Abs(r.Eps-l.Eps) / l.Eps; rel > 1e-9 {
						t.Errorf("LP(%d, %d, %v, %v) = %v, closed form %v", d, k, c, eps, r.Eps, l.Eps)
					}
					// The maximizer's ratio, recomputed over all corners, loses
					// absolute accuracy to cancellation only (log of a sum).
					if diff := math.Abs(r.Ratio - l.Eps); diff > 1e-9*l.Eps+1e-14 {
						t.Errorf("LP(%d, %d, %v, %v): maximizer's ratio %v, closed form %v", d, k, c, eps, r.Ratio, l.Eps)
					}
					if r.DivPQ > eps*(1+1e-9)+1e-15 || r.DivQP > eps*(1+1e-9)+1e-15 {
						t.Errorf("LP(%d, %d, %v, %v): maximizer is %v, %v-DP, want %v", d, k, c, eps, r.DivPQ, r.DivQP, eps)
					}
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d points", n)
	}
}

// TestRandomPairs draws eps-DP pairs of distributions on random points of
// [c, 1-c]^d, interior points included, and checks that no output ratio
// exceeds Upper; the witness of Witness must attain Lower.
func TestRandomPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		d, k   int
		c, eps float64
	}{
		{1, 1, 0.1, 1}, {1, 3, 0.2, 0.5}, {2, 1, 0.1, 2}, {2, 2, 0.3, 1}, {3, 1, 0.2, 0.3}, {3, 2, 0.4, 4},
	} {
		l, err := Amplify(tc.d, tc.k, tc.c, tc.eps)
		if err != nil {
			t.Fatal(err)
		}
		worst := math.Inf(-1)
		for range 2000 {
			n := 2 + rng.IntN(4)
			pts := make([][]float64, n)
			for i := range pts {
				pts[i] = make([]float64, tc.d)
				for j := range pts[i] {
					switch rng.IntN(3) {
					case 0:
						pts[i][j] = tc.c
					case 1:
						pts[i][j] = 1 - tc.c
					default:
						pts[i][j] = tc.c + (1-2*tc.c)*rng.Float64()
					}
				}
			}
			x, y := randomPair(rng, n, tc.eps)
			m := make([]int, tc.d)
			for j := range m {
				m[j] = rng.IntN(tc.k + 1)
			}
			worst = math.Max(worst, logRatio(pts, x, y, m, tc.k))
		}
		if worst > l.Upper {
			t.Errorf("d=%d k=%d c=%v eps=%v: a random pair reaches %v > Upper %v", tc.d, tc.k, tc.c, tc.eps, worst, l.Upper)
		}
		// The witness: P(0^d) = p0, P(1^d) = 1 - p0, Q mirrored.
		p0, q0 := Witness(tc.eps)
		pts := [][]float64{make([]float64, tc.d), make([]float64, tc.d)}
		for j := range tc.d {
			pts[0][j], pts[1][j] = tc.c, 1-tc.c
		}
		if r := math.Log(p0 / q0); math.Abs(r-tc.eps) > 1e-14*tc.eps {
			t.Errorf("Witness(%v): log P/Q = %v", tc.eps, r)
		}
		got := logRatio(pts, []float64{p0, q0}, []float64{q0, p0}, make([]int, tc.d), tc.k)
		if math.Abs(got-l.Eps) > 1e-13*l.Eps {
			t.Errorf("d=%d k=%d c=%v eps=%v: the witness reaches %v, want %v", tc.d, tc.k, tc.c, tc.eps, got, l.Eps)
		}
	}
}

// randomPair returns distributions x, y on n points with x <= e^eps y and
// y <= e^eps x: mixtures (e T + S)/(1+e), (T + e S)/(1+e) of random T, S,
// often point masses (the extreme pairs).
func randomPair(rng *rand.Rand, n int, eps float64) (x, y []float64) {
	e := math.Exp(eps)
	draw := func() []float64 {
		v := make([]float64, n)
		if rng.IntN(2) == 0 {
			v[rng.IntN(n)] = 1
			return v
		}
		var s float64
		for i := range v {
			v[i] = rng.ExpFloat64()
			s += v[i]
		}
		for i := range v {
			v[i] /= s
		}
		return v
	}
	T, S := draw(), draw()
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = (e*T[i] + S[i]) / (1 + e)
		y[i] = (T[i] + e*S[i]) / (1 + e)
	}
	return x, y
}

// logRatio returns log Pr_x[m] / Pr_y[m] for the counts m of k samples of
// coins with biases pts[i] (in float64; the cases are well scaled).
func logRatio(pts [][]float64, x, y []float64, m []int, k int) float64 {
	var px, py float64
	for i, p := range pts {
		g := 1.0
		for j, th := range p {
			g *= math.Pow(th, float64(m[j])) * math.Pow(1-th, float64(k-m[j]))
		}
		px += x[i] * g
		py += y[i] * g
	}
	return math.Log(px / py)
}

func TestAmplifyEdges(t *testing.T) {
	l, err := Amplify(3, 2, 0.1, 0)
	if err != nil || l != (Level{}) {
		t.Errorf("Amplify(eps = 0) = %+v, %v; want zeros", l, err)
	}
	a, err := Asymptote(3, 2, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	if want := 6 * math.Log(9); a < want || a > want*(1+1e-14) {
		t.Errorf("Asymptote(3, 2, 0.1) = %v, want just above %v", a, want)
	}
	// Monotone in eps up to the asymptote, never above min(eps, L).
	prev := 0.0
	for _, eps := range []float64{1e-300, 1e-10, 0.5, 5, 50, 500, 1e300, math.Inf(1)} {
		l, err := Amplify(3, 2, 0.1, eps)
		if err != nil {
			t.Fatal(err)
		}
		if l.Eps < prev || l.Lower > math.Min(eps, a) {
			t.Errorf("Amplify(3, 2, 0.1, %v) = %+v after %v (asymptote %v)", eps, l, prev, a)
		}
		if math.IsNaN(l.Upper) || math.IsInf(l.Upper, 0) {
			t.Errorf("Amplify(3, 2, 0.1, %v).Upper = %v", eps, l.Upper)
		}
		prev = l.Eps
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		d, k   int
		c, eps float64
	}{
		{0, 1, 0.1, 1}, {1, 0, 0.1, 1}, {1, 1, 0.5, 1}, {1, 1, 0, 1}, {1, 1, 0.1, -1}, {1, 1, 0.1, math.NaN()},
	} {
		if _, err := Amplify(tc.d, tc.k, tc.c, tc.eps); err == nil {
			t.Errorf("Amplify(%d, %d, %v, %v): no error", tc.d, tc.k, tc.c, tc.eps)
		}
		if _, err := LP(tc.d, tc.k, tc.c, tc.eps); err == nil {
			t.Errorf("LP(%d, %d, %v, %v): no error", tc.d, tc.k, tc.c, tc.eps)
		}
	}
	if _, err := LP(1, 1, 0.1, math.Inf(1)); err == nil {
		t.Error("LP(eps = +Inf): no error")
	}
	if _, err := LP(MaxLPD+1, 1, 0.1, 1); !errors.Is(err, ErrTooLarge) {
		t.Errorf("LP(d = %d): %v, want ErrTooLarge", MaxLPD+1, err)
	}
}

// TestAmplifyRanges checks per-coordinate ranges against exact rational
// linear programs over theta grids with interior points
// (testdata/puredp/lp_ranges.csv), and symmetric ranges against Amplify.
func TestAmplifyRanges(t *testing.T) {
	for _, rec := range testref.Rows(t, "../testdata/puredp/lp_ranges.csv", 5) {
		var rs []bounds.Range
		for _, f := range strings.Split(rec[0], ";") {
			lo, hi, _ := strings.Cut(f, ":")
			rs = append(rs, bounds.Range{Lo: testref.Float(t, lo), Hi: testref.Float(t, hi)})
		}
		k, err := strconv.Atoi(rec[1])
		if err != nil {
			t.Fatal(err)
		}
		eps, want := testref.Float(t, rec[2]), testref.Float(t, rec[4])
		l, err := AmplifyRanges(rs, k, eps)
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(l.Eps-want) / want; rel > 1e-13 || l.Lower > want*(1+0x1p-53) || l.Upper < want*(1-0x1p-53) {
			t.Errorf("AmplifyRanges(%v, %d, %v) = %+v, exact LP %v", rs, k, eps, l, want)
		}
	}
	for _, c := range []float64{1e-6, 0.1, 0.3, 0.4999} {
		for _, eps := range []float64{1e-8, 1, 50, math.Inf(1)} {
			for _, dk := range [][2]int{{1, 1}, {3, 2}, {100, 100}} {
				a, err1 := Amplify(dk[0], dk[1], c, eps)
				r, err2 := AmplifyRanges(bounds.Symmetric(dk[0], c), dk[1], eps)
				if err1 != nil || err2 != nil {
					t.Fatal(err1, err2)
				}
				if math.Abs(a.Eps-r.Eps) > 1e-14*a.Eps || r.Lower > a.Upper || a.Lower > r.Upper {
					t.Errorf("d=%d k=%d c=%v eps=%v: ranges %+v, symmetric %+v", dk[0], dk[1], c, eps, r, a)
				}
			}
		}
	}
	for _, rs := range [][]bounds.Range{nil, {{Lo: 0.5, Hi: 0.5}}, {{Lo: 0, Hi: 0.5}}, {{Lo: 0.2, Hi: 1}}} {
		if _, err := AmplifyRanges(rs, 1, 1); err == nil {
			t.Errorf("AmplifyRanges(%v): no error", rs)
		}
	}
}
