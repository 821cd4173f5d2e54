package solver

import (
	"math"

	"github.com/bernamp/bernamp/corner"
)

// vertexSearch maximizes F over the masses of the reduced program for fixed
// per-point ratios r_j = x_j / (x_j + y_j). Writing x_j = w_j r_j and y_j =
// w_j (1 - r_j), the constraints are linear in w >= 0:
//
//	sum w_j = 2,  sum w_j r_j = 1,
//	sum w_j r_j^alpha (1-r_j)^(1-alpha) <= E,  sum w_j (1-r_j)^alpha r_j^(1-alpha) <= E,
//
// a polygon in the 4 weights, and F is convex in w, so its maximum is at a
// vertex (math.md section 3.2). vertexSearch enumerates the vertices: each
// has 2 of the 6 inequalities tight.
type vertexSearch struct {
	prog  Objective
	alpha float64
	logE  float64
	n     int
	evals int
	// scratch, so that best allocates nothing
	x, y, r, w []float64
	rows       [][]float64 // n unit rows, then the two constraint rows
	rhs        []float64
	m          [][]float64
	fx, fy     []float64
}

func newVertexSearch(prog Objective, alpha, eps float64) *vertexSearch {
	n := corner.Points
	vs := &vertexSearch{prog: prog, alpha: alpha, logE: (alpha - 1) * eps, n: n,
		x: make([]float64, n), y: make([]float64, n), r: make([]float64, n), w: make([]float64, n),
		rows: make([][]float64, n+2), rhs: make([]float64, n+2), m: make([][]float64, n),
		fx: make([]float64, n), fy: make([]float64, n)}
	for j := range vs.rows {
		vs.rows[j] = make([]float64, n)
		if j < n {
			vs.rows[j][j] = 1
		} else {
			vs.rhs[j] = 1
		}
	}
	for i := range vs.m {
		vs.m[i] = make([]float64, n+1)
	}
	return vs
}

// best returns the largest log F over the vertices for ratios expit(theta)
// and the masses that attain it (copied into bx, by). It returns -Inf when
// no vertex is feasible. The support has 4 points, so a vertex has 2 of the
// 6 inequalities tight: 15 systems of size 4.
func (vs *vertexSearch) best(theta, bx, by []float64) float64 {
	n, a := vs.n, vs.alpha
	al, be := vs.rows[n], vs.rows[n+1] // r^a (1-r)^(1-a) / E and (1-r)^a r^(1-a) / E
	for j, t := range theta {
		lr, l1r := -softplusNeg(t), -softplusNeg(-t) // log r, log(1-r)
		vs.r[j] = math.Exp(lr)
		al[j] = math.Exp(a*lr + (1-a)*l1r - vs.logE)
		be[j] = math.Exp(a*l1r + (1-a)*lr - vs.logE)
	}
	top := math.Inf(-1)
	for q1 := range vs.rows {
		for q2 := q1 + 1; q2 < len(vs.rows); q2++ {
			m := vs.m
			for c := range n {
				m[0][c], m[1][c] = 1, vs.r[c]
			}
			m[0][n], m[1][n] = 2, 1
			copy(m[2][:n], vs.rows[q1])
			m[2][n] = vs.rhs[q1]
			copy(m[3][:n], vs.rows[q2])
			m[3][n] = vs.rhs[q2]
			if !solve(m, vs.w) || !vs.feasibleW(vs.w, al, be) {
				continue
			}
			for j := range n {
				wj := math.Max(vs.w[j], 0)
				vs.x[j], vs.y[j] = wj*vs.r[j], wj*(1-vs.r[j])
			}
			normalize(vs.x)
			normalize(vs.y)
			vs.evals++
			if f := vs.prog.LogF(vs.x, vs.y); f > top {
				top = f
				copy(bx, vs.x)
				copy(by, vs.y)
			}
		}
	}
	return top
}

func (vs *vertexSearch) feasibleW(w, al, be []float64) bool {
	const slack = 1e-12
	var sa, sb float64
	for j, v := range w {
		if v < -slack {
			return false
		}
		v = math.Max(v, 0)
		sa += v * al[j]
		sb += v * be[j]
	}
	return sa <= 1+slack && sb <= 1+slack
}

// softplusNeg returns log(1 + e^-t), so log expit(t) = -softplusNeg(t).
func softplusNeg(t float64) float64 {
	if t > 0 {
		return math.Log1p(math.Exp(-t))
	}
	return -t + math.Log1p(math.Exp(t))
}

func normalize(v []float64) {
	var s float64
	for _, x := range v {
		s += x
	}
	for i := range v {
		v[i] /= s
	}
}

// solve solves the n x n system in the augmented matrix m (n rows, n+1
// columns) by Gaussian elimination with partial pivoting, writing the
// solution into w. It reports false for a (numerically) singular system.
func solve(m [][]float64, w []float64) bool {
	n := len(m)
	for col := range n {
		piv, big := col, 0.0
		for i := col; i < n; i++ {
			if a := math.Abs(m[i][col]); a > big {
				piv, big = i, a
			}
		}
		if big < 1e-14 {
			return false
		}
		m[col], m[piv] = m[piv], m[col]
		for i := col + 1; i < n; i++ {
			f := m[i][col] / m[col][col]
			for c := col; c <= n; c++ {
				m[i][c] -= f * m[col][c]
			}
		}
	}
	for i := n - 1; i >= 0; i-- {
		s := m[i][n]
		for c := i + 1; c < n; c++ {
			s -= m[i][c] * w[c]
		}
		w[i] = s / m[i][i]
	}
	return true
}

// patternSearch improves theta by coordinate steps of size h, halving h
// when no step helps, until h < hMin or the budget of vertexSearch calls is
// spent. It returns the best value; theta, bx and by hold its point.
func (vs *vertexSearch) patternSearch(theta, bx, by []float64, budget int) float64 {
	const hMin = 1e-4
	fx, fy := vs.fx, vs.fy
	cur := vs.best(theta, bx, by)
	calls := 1
	for h := 1.0; h >= hMin && calls < budget; {
		improved := false
		for j := range theta {
			for _, step := range []float64{h, -h} {
				theta[j] += step
				f := vs.best(theta, fx, fy)
				calls++
				if f > cur {
					cur = f
					copy(bx, fx)
					copy(by, fy)
					improved = true
					break
				}
				theta[j] -= step
			}
		}
		if !improved {
			h /= 2
		}
	}
	return cur
}
