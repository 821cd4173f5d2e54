package puredp

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
	"gonum.org/v1/gonum/stat/combin"

	"github.com/bernamp/bernamp/internal/logspace"
)

// Limits of LP: each program has 3 rows and 2 n + 1 columns for n <= 2^d
// classes of corners, and one is solved per output class, C(d + floor(k/2),
// d) of them (see LP).
const (
	MaxLPD = 6  // largest d
	MaxLPK = 16 // largest k
)

// simplexTol is the reduced-cost tolerance of lp.Simplex: with 0, rounding
// noise in the reduced costs of these degenerate programs can make the
// simplex cycle.
const simplexTol = 1e-10

// ErrTooLarge is returned by LP beyond MaxLPD or MaxLPK.
var ErrTooLarge = errors.New("puredp: too large for the linear programs")

// LPResult is the amplified pure-DP level found by linear programming.
type LPResult struct {
	Eps    float64   // log of the largest LP optimum: eps' up to the simplex tolerance (no proof of either side)
	Output []int     // count vector m of the worst output class (m_l <= k/2, sorted)
	P, Q   []float64 // the maximizer over the 2^d corners (corner.Name order)
	Ratio  float64   // log (K P)_m / (K Q)_m recomputed from P and Q
	DivPQ  float64   // max_z log(P_z / Q_z) <= eps up to rounding
	DivQP  float64   // max_z log(Q_z / P_z) <= eps up to rounding
	LPs    int       // linear programs solved
}

// LP computes the amplified pure-DP level by linear programming, without
// the closed form of Amplify: for each output m it maximizes the
// linear-fractional program
//
//	max (g.x) / (g.y)   s.t.  x, y >= 0,  sum x = sum y = 1,  x <= e y,  y <= e x,
//
// g_z = K[m, z] over the 2^d corners, e = e^eps, by the Charnes-Cooper
// LP of fractional (written in the coordinates T, S of the package proof),
// solved by gonum's lp.Simplex. Only one output per class of the symmetry
// group is solved (flipping coordinate l maps m_l to k - m_l and the
// corners to themselves, permuting coordinates permutes both; the program
// is invariant), so m runs over the sorted vectors with entries in
// 0..floor(k/2), and corners that look alike from m are merged (classes).
//
// The value is a floating-point LP optimum, not a proved bound: it agrees
// with Amplify to about 1e-11 relative on the d <= 6, k <= 16 grid of the
// tests. g is scaled to max 1 per output, so the LPs are well posed while
// max g / min g = ((1-c)/c)^(d k) stays well inside float64.
//
// LP returns an error for invalid input (eps must be finite here),
// ErrTooLarge beyond MaxLPD or MaxLPK, and the solver's error when a
// program fails.
func LP(d, k int, c, eps float64) (LPResult, error) {
	if err := validate(d, k, c, eps); err != nil {
		return LPResult{}, fmt.Errorf("puredp.LP: %w", err)
	}
	if math.IsInf(eps, 1) {
		return LPResult{}, fmt.Errorf("puredp.LP: eps is +Inf, must be finite")
	}
	if d > MaxLPD || k > MaxLPK {
		return LPResult{}, fmt.Errorf("puredp.LP: d=%d k=%d: %w (d <= %d, k <= %d)", d, k, ErrTooLarge, MaxLPD, MaxLPK)
	}
	// logW[m][bit] = log P(count m | theta = c or 1-c) for one coordinate.
	logW := make([][2]float64, k+1)
	for m := range logW {
		logW[m][0] = logspace.BinomPMF(m, k, c, 1-c)
		logW[m][1] = logspace.BinomPMF(k-m, k, c, 1-c)
	}
	best := LPResult{Eps: math.Inf(-1)}
	m := make([]int, d)
	for {
		cl := newClasses(m, logW)
		v, x, y, err := fractional(cl.g, eps)
		best.LPs++
		if err != nil {
			return LPResult{}, fmt.Errorf("puredp.LP: output %v: %w", m, err)
		}
		if v > best.Eps {
			best.Eps, best.Output = v, append([]int(nil), m...)
			best.P, best.Q = cl.spread(x), cl.spread(y)
		}
		if !nextClass(m, k/2) {
			break
		}
	}
	best.Ratio = witnessRatio(best.Output, best.P, best.Q, logW)
	best.DivPQ, best.DivQP = maxLogRatio(best.P, best.Q), maxLogRatio(best.Q, best.P)
	return best, nil
}

// nextClass advances m to the next nondecreasing vector with entries in
// 0..top, and reports false after the last one.
func nextClass(m []int, top int) bool {
	i := len(m) - 1
	for i >= 0 && m[i] == top {
		i--
	}
	if i < 0 {
		return false
	}
	m[i]++
	for j := i + 1; j < len(m); j++ {
		m[j] = m[i]
	}
	return true
}

// fractional solves max (g.x)/(g.y) over the eps-DP pairs by the
// Charnes-Cooper LP and returns the log of the optimum and the maximizer.
//
// The pairs are written as x = (e T + S)/(1+e), y = (T + e S)/(1+e) with
// T, S probability vectors: a linear bijection of the feasible set (T =
// (e x - y)/(e-1) and S = (e y - x)/(e-1) are >= 0 exactly when x <= e y
// and y <= e x). The program becomes max (e g.T + g.S)/(g.T + e g.S), and
// with T' = t T, S' = t S, t = 1/(g.T + e g.S) the LP
//
//	max e g.T' + g.S'   s.t.  g.T' + e g.S' = 1,  sum T' = sum S' = t,  T', S', t >= 0,
//
// three rows. The same LP in x, y (rows x'_z - e y'_z <= 0 and the
// mirror, 2n + 3 rows) made lp.Simplex, which has no iteration limit,
// cycle at eps >= 5 or (k+1)^d large: measured on the d <= 6, k <= 16
// grid of the tests.
func fractional(g []float64, eps float64) (logRatio float64, x, y []float64, err error) {
	n, e := len(g), math.Exp(eps)
	// Columns: T' (n), S' (n), t.
	is, it := n, 2*n
	A := mat.NewDense(3, 2*n+1, nil)
	obj := make([]float64, 2*n+1)
	for z, gz := range g {
		obj[z], obj[is+z] = -e*gz, -gz // Simplex minimizes
		A.Set(0, z, gz)
		A.Set(0, is+z, e*gz)
		A.Set(1, z, 1)
		A.Set(2, is+z, 1)
	}
	A.Set(1, it, -1)
	A.Set(2, it, -1)
	b := []float64{1, 0, 0}
	// Start from T = S = the point mass on a corner z0 with g_z0 = 1:
	// T'_z0 = S'_z0 = t = 1/(1+e), a nonsingular basis.
	z0 := 0
	for z, gz := range g {
		if gz == 1 {
			z0 = z
			break
		}
	}
	_, sol, err := lp.Simplex(obj, A, b, simplexTol, []int{z0, is + z0, it})
	if err != nil {
		return 0, nil, nil, err
	}
	t := sol[it]
	var gT, gS float64
	x, y = make([]float64, n), make([]float64, n)
	for z := range n {
		T, S := sol[z]/t, sol[is+z]/t
		x[z], y[z] = (e*T+S)/(1+e), (T+e*S)/(1+e)
		gT += g[z] * T
		gS += g[z] * S
	}
	// log of (e gT + gS)/(gT + e gS) without the cancellation of log(ratio)
	// near 1: the ratio is 1 + (e-1)(gT - gS)/(gT + e gS).
	return math.Log1p(math.Expm1(eps) * (gT - gS) / (gT + e*gS)), x, y, nil
}

// witnessRatio returns log (K x)_m / (K y)_m over the full corner set.
func witnessRatio(m []int, x, y []float64, logW [][2]float64) float64 {
	d := len(m)
	nx, ny := logspace.NewAcc(), logspace.NewAcc()
	for z := range x {
		var s float64
		for l := range d {
			s += logW[m[l]][z>>(d-1-l)&1]
		}
		nx.Add(s + math.Log(x[z]))
		ny.Add(s + math.Log(y[z]))
	}
	return nx.Log() - ny.Log()
}

// maxLogRatio returns max_z log(x_z / y_z) over z with x_z > 0.
func maxLogRatio(x, y []float64) float64 {
	r := math.Inf(-1)
	for z := range x {
		if x[z] > 0 {
			r = math.Max(r, math.Log(x[z]/y[z]))
		}
	}
	return r
}

// classes merges the corners that look alike from output m: corners with
// the same number of ones on each group of coordinates sharing a count
// m_l have the same K[m, z]. Merging them is exact: the masses X_w, Y_w of
// a class obey X_w <= e Y_w and Y_w <= e X_w whenever the corners do, and
// conversely spreading X_w, Y_w evenly over the class gives a feasible
// pair with the same value.
type classes struct {
	d      int
	group  []int     // group of each coordinate
	sizes  []int     // coordinates per group
	g      []float64 // K[m, z] / max_z K[m, z] for a corner z of each class
	counts []float64 // corners per class
}

// newClasses returns the classes of the sorted output m.
func newClasses(m []int, logW [][2]float64) *classes {
	cl := &classes{d: len(m), group: make([]int, len(m))}
	var vals []int
	for l, v := range m {
		if l == 0 || v != m[l-1] {
			vals = append(vals, v)
			cl.sizes = append(cl.sizes, 0)
		}
		cl.group[l] = len(vals) - 1
		cl.sizes[len(vals)-1]++
	}
	n := 1
	for _, s := range cl.sizes {
		n *= s + 1
	}
	logg := make([]float64, n)
	cl.counts = make([]float64, n)
	top := math.Inf(-1)
	for w := range n {
		// w in mixed radix: j_g ones on group g, group 0 most significant.
		var s float64
		count := 1.0
		rest := w
		for g := len(cl.sizes) - 1; g >= 0; g-- {
			ng := cl.sizes[g]
			j := rest % (ng + 1)
			rest /= ng + 1
			s += float64(ng-j)*logW[vals[g]][0] + float64(j)*logW[vals[g]][1]
			count *= float64(combin.Binomial(ng, j))
		}
		logg[w], cl.counts[w] = s, count
		top = math.Max(top, s)
	}
	cl.g = make([]float64, n)
	for w, s := range logg {
		cl.g[w] = math.Exp(s - top)
	}
	return cl
}

// class returns the class of corner z.
func (cl *classes) class(z int) int {
	ones := make([]int, len(cl.sizes))
	for l := range cl.d {
		ones[cl.group[l]] += z >> (cl.d - 1 - l) & 1
	}
	w := 0
	for g, ng := range cl.sizes {
		w = w*(ng+1) + ones[g]
	}
	return w
}

// spread returns the corner masses x_z = X_w / |w| of class masses X.
func (cl *classes) spread(X []float64) []float64 {
	x := make([]float64, 1<<cl.d)
	for z := range x {
		w := cl.class(z)
		x[z] = X[w] / cl.counts[w]
	}
	return x
}
