package solver

import "math"

// certLP is a small dense linear program in inequality form,
//
//	maximize  c'z
//	s.t.      A z <= b          (len(b) rows)
//	          Aeq z = beq       (len(beq) rows)
//	          lo <= z <= up     (every variable bounded)
//
// with A and Aeq stored row-major. The builders of Certify reuse one certLP
// per worker: reset keeps the capacity.
type certLP struct {
	n      int
	c      []float64
	a, b   []float64
	aeq    []float64
	beq    []float64
	lo, up []float64
}

func (lp *certLP) reset(n int) {
	lp.n = n
	lp.c = certGrow(lp.c, n)
	lp.lo = certGrow(lp.lo, n)
	lp.up = certGrow(lp.up, n)
	lp.a, lp.b = lp.a[:0], lp.b[:0]
	lp.aeq, lp.beq = lp.aeq[:0], lp.beq[:0]
}

// row appends a zero inequality row with right-hand side rhs and returns it.
func (lp *certLP) row(rhs float64) []float64 {
	k := len(lp.a)
	lp.a = append(lp.a, make([]float64, lp.n)...)
	lp.b = append(lp.b, rhs)
	r := lp.a[k : k+lp.n]
	clear(r)
	return r
}

// eqRow appends a zero equality row with right-hand side rhs and returns it.
func (lp *certLP) eqRow(rhs float64) []float64 {
	k := len(lp.aeq)
	lp.aeq = append(lp.aeq, make([]float64, lp.n)...)
	lp.beq = append(lp.beq, rhs)
	r := lp.aeq[k : k+lp.n]
	clear(r)
	return r
}

// dropRow removes the last inequality row.
func (lp *certLP) dropRow() {
	lp.a = lp.a[:len(lp.a)-lp.n]
	lp.b = lp.b[:len(lp.b)-1]
}

func certGrow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

func certGrowInt(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// certPad is the relative padding of the rounding model: every weak-duality
// bound is raised by certPad times the sum of the magnitudes that enter it
// (docs/certificates.md). It covers the float64 evaluation of the bound (a
// few hundred roundings of terms bounded by those magnitudes, below 1e-13
// of them) and any perturbation of the data below about 5e-13 relative.
const certPad = 1e-12

// dualBound returns an upper bound on the optimum of lp from any multipliers
// lam (one per inequality row, negative entries are treated as 0) and mu
// (one per equality row, free), by weak duality: for every feasible z,
//
//	c'z = lam'(A z) + mu'(Aeq z) + r'z <= lam'b + mu'beq + sum_j max(r_j lo_j, r_j up_j),
//	r = c - A'lam - Aeq'mu,
//
// evaluated in float64 and padded outward by
//
//	certPad * (|lam|'(|A| zmax + |b|) + |mu|'(|Aeq| zmax + |beq|) + |c|' zmax),  zmax_j = max(|lo_j|, |up_j|).
//
// No property of the multipliers is assumed: any lam, mu give a valid bound,
// the solver's optimal duals a tight one. r is written into scratch (length
// n). A NaN anywhere gives +Inf.
func (lp *certLP) dualBound(lam, mu, r []float64) float64 {
	n := lp.n
	r = r[:n]
	copy(r, lp.c)
	var val, mag float64
	for j, cj := range lp.c {
		mag += math.Abs(cj) * math.Max(math.Abs(lp.lo[j]), math.Abs(lp.up[j]))
	}
	// Each multiplied row adds mult*b to the bound, takes mult*row from the
	// reduced costs, and adds |mult| times its magnitude to the padding.
	// Inequality multipliers must be >= 0 for weak duality: others (and NaN)
	// are skipped, which only weakens the bound.
	addRows := func(a, b, mults []float64, nonneg bool) {
		for i, m := range mults {
			if m == 0 || nonneg && !(m > 0) {
				continue
			}
			row := a[i*n : i*n+n]
			val += m * b[i]
			rm := math.Abs(b[i])
			for j, aij := range row {
				if aij != 0 {
					r[j] -= m * aij
					rm += math.Abs(aij) * math.Max(math.Abs(lp.lo[j]), math.Abs(lp.up[j]))
				}
			}
			mag += math.Abs(m) * rm
		}
	}
	addRows(lp.a, lp.b, lam, true)
	addRows(lp.aeq, lp.beq, mu, false)
	for j, rj := range r {
		val += math.Max(rj*lp.lo[j], rj*lp.up[j])
	}
	b := val + certPad*mag
	if math.IsNaN(b) {
		return math.Inf(1)
	}
	return b
}

// farkas reports whether the multipliers (rho >= 0 on the inequality rows,
// mu free on the equality rows) prove that lp has no feasible point: with c
// replaced by 0, their padded weak-duality bound (see dualBound) is below 0,
// so 0 = max over the feasible set of 0 < 0, a contradiction unless the set
// is empty. This is the dual certificate of the phase-1 program "minimize
// zeta subject to every row relaxed by zeta" having a positive optimum.
func (lp *certLP) farkas(rho, mu, r []float64) bool {
	c := lp.c
	lp.c = r[lp.n : 2*lp.n]
	clear(lp.c)
	v := lp.dualBound(rho, mu, r[:lp.n])
	lp.c = c
	return v < 0
}

// certStatus is how a certSimplex solve ended.
type certStatus int

const (
	certOptimal    certStatus = iota // no row violated by more than certFeasTol
	certInfeasible                   // the dual is unbounded along ray
	certIterLimit                    // stopped at the iteration limit or a singular basis: lam is still dual feasible
	certStopped                      // the dual value fell below the caller's stop level
)

// Tolerances of the dual simplex. They decide only how good the multipliers
// are, never whether a bound is valid: every bound is re-derived by
// dualBound.
const (
	// certFeasTol is the primal violation accepted at optimality (rows
	// scaled to max |a_ij| = 1). At 1e-10 the multipliers of such a
	// near-optimal basis left a floor of about 3e-9 nats at d = 2, k = 1,
	// c = 0.1, alpha = 50, eps = 4.4 (10^6 boxes, no closing); 1e-12
	// certifies it in 0.02 s and all 300 d = 2 points of the paper's grids
	// in 4.8 s (18.7 s, 297 certified, before), with no point slower.
	certFeasTol  = 1e-12
	certPivTol   = 1e-9  // smallest pivot accepted in the ratio test
	certDualTol  = 1e-12 // Harris tolerance of the ratio test
	certRefactor = 50    // pivots between refactorizations of the basis inverse
)

// certSimplex is a dense dual simplex for certLP in active-set form: a basis
// is a set of n constraints (rows, equality rows or variable bounds) whose
// normals g_p form a nonsingular matrix N, the basic point is z = N^-1 h and
// the multipliers lam = N^-T c. Starting from the variable bounds (upper
// where c_j > 0, lower otherwise: lam = |c| >= 0) every iterate is dual
// feasible, so every iterate's multipliers prove a bound, and the dual
// value decreases toward the optimum. Each iteration brings in the most
// violated constraint and drops the basic one chosen by the (Harris) dual
// ratio test; equality rows never leave once in. Rows appended to the LP
// after a solve keep the basis dual feasible, so extend and run continue
// from it (the cut rounds of a box). An iteration costs about n^2 plus the
// nonzeros of the rows. A certSimplex holds scratch and is not safe for
// concurrent use.
type certSimplex struct {
	n, mi, me int
	basis     []int     // constraint id per position: [0,mi) rows, [mi,mi+me) equality rows, then lower bounds, then upper bounds
	sgn       []float64 // sign of the normal per position (equality rows may enter negated; lower bounds are -e_j)
	pos       []int     // position of each constraint id, -1 when not basic
	binv      []float64 // N^-1, column-major: column p is binv[p*n : p*n+n]
	lam       []float64 // multiplier per position
	h         []float64 // right-hand side per position
	z, w, g   []float64
	gnz       []int
	nzOff     []int // nonzeros of row i: nzIdx[nzOff[i]:nzOff[i+1]]
	nzIdx     []int
	ray       []float64 // on certInfeasible: multiplier per position of the Farkas ray, rayQ for the entering row
	rayQ      int
	rayS      float64
	iters     int
	nmat, inv []float64
}

// normal writes the normal of constraint id with sign s into g (length n)
// and returns its right-hand side.
func (sx *certSimplex) normal(lp *certLP, id int, s float64, g []float64) float64 {
	n := sx.n
	clear(g)
	switch {
	case id < sx.mi:
		copy(g, lp.a[id*n:id*n+n])
		return lp.b[id]
	case id < sx.mi+sx.me:
		r := id - sx.mi
		for j, v := range lp.aeq[r*n : r*n+n] {
			g[j] = s * v
		}
		return s * lp.beq[r]
	case id < sx.mi+sx.me+n:
		j := id - sx.mi - sx.me
		g[j] = -1
		return -lp.lo[j]
	default:
		j := id - sx.mi - sx.me - n
		g[j] = 1
		return lp.up[j]
	}
}

// solve runs the dual simplex on lp from the bound basis; see run.
func (sx *certSimplex) solve(lp *certLP, stop float64, maxIter int) certStatus {
	sx.start(lp)
	return sx.run(lp, stop, maxIter)
}

// start sets up the bound basis of lp: dual feasible, lam = |c|.
func (sx *certSimplex) start(lp *certLP) {
	n, mi, me := lp.n, len(lp.b), len(lp.beq)
	sx.n, sx.mi, sx.me = n, mi, me
	sx.basis = certGrowInt(sx.basis, n)
	sx.sgn = certGrow(sx.sgn, n)
	sx.binv = certGrow(sx.binv, n*n)
	sx.lam = certGrow(sx.lam, n)
	sx.h = certGrow(sx.h, n)
	sx.z = certGrow(sx.z, n)
	sx.w = certGrow(sx.w, n)
	sx.g = certGrow(sx.g, n)
	sx.ray = certGrow(sx.ray, n)
	sx.nmat = certGrow(sx.nmat, n*n)
	clear(sx.binv)
	for j := range n {
		id := mi + me + j // lower bound
		s := -1.0
		if lp.c[j] > 0 {
			id, s = mi+me+n+j, 1
		}
		sx.basis[j], sx.sgn[j] = id, s
		sx.binv[j*n+j] = s
		sx.lam[j] = math.Abs(lp.c[j])
		sx.h[j] = sx.normal(lp, id, s, sx.g)
	}
	sx.nzOff = append(sx.nzOff[:0], 0)
	sx.nzIdx = sx.nzIdx[:0]
	sx.index(lp, 0)
	sx.iters = 0
}

// extend takes over the basis of the last solve after inequality rows were
// appended to lp (nothing else changed): the old basis stays dual feasible.
func (sx *certSimplex) extend(lp *certLP) {
	mi := len(lp.b)
	delta := mi - sx.mi
	for p, id := range sx.basis[:sx.n] {
		if id >= sx.mi {
			sx.basis[p] = id + delta
		}
	}
	old := sx.mi
	sx.mi = mi
	sx.index(lp, old)
}

// index records the nonzeros of rows [from, mi) and rebuilds pos.
func (sx *certSimplex) index(lp *certLP, from int) {
	n := sx.n
	for i := from; i < sx.mi; i++ {
		for j, v := range lp.a[i*n : i*n+n] {
			if v != 0 {
				sx.nzIdx = append(sx.nzIdx, j)
			}
		}
		sx.nzOff = append(sx.nzOff, len(sx.nzIdx))
	}
	sx.pos = certGrowInt(sx.pos, sx.mi+sx.me+2*n)
	for i := range sx.pos {
		sx.pos[i] = -1
	}
	for p, id := range sx.basis[:n] {
		sx.pos[id] = p
	}
}

// run iterates the dual simplex. It stops early with certStopped when the
// dual value lam'h drops to stop or below (pass -Inf never to stop early;
// run may be called again to continue), after maxIter iterations in total
// with certIterLimit, and otherwise ends certOptimal or certInfeasible.
// sx.z holds the last basic point.
func (sx *certSimplex) run(lp *certLP, stop float64, maxIter int) certStatus {
	n, mi, me := sx.n, sx.mi, sx.me
	z, w := sx.z, sx.w
	for {
		// Basic point z = N^-1 h.
		clear(z)
		var dual float64
		for p := range n {
			hp := sx.h[p]
			dual += sx.lam[p] * hp
			if hp == 0 {
				continue
			}
			col := sx.binv[p*n : p*n+n]
			for j, v := range col {
				z[j] += hp * v
			}
		}
		if dual <= stop {
			return certStopped
		}
		// Most violated constraint.
		q, qs, best := -1, 1.0, certFeasTol
		for i := range mi {
			if sx.pos[i] >= 0 {
				continue
			}
			row := lp.a[i*n : i*n+n]
			v := -lp.b[i]
			for _, j := range sx.nzIdx[sx.nzOff[i]:sx.nzOff[i+1]] {
				v += row[j] * z[j]
			}
			if v > best {
				q, qs, best = i, 1, v
			}
		}
		for r := range me {
			if sx.pos[mi+r] >= 0 {
				continue
			}
			row := lp.aeq[r*n : r*n+n]
			v := -lp.beq[r]
			for j, a := range row {
				v += a * z[j]
			}
			if math.Abs(v) > best {
				q, qs, best = mi+r, math.Copysign(1, v), math.Abs(v)
			}
		}
		for j := range n {
			if v := lp.lo[j] - z[j]; v > best && sx.pos[mi+me+j] < 0 {
				q, qs, best = mi+me+j, -1, v
			}
			if v := z[j] - lp.up[j]; v > best && sx.pos[mi+me+n+j] < 0 {
				q, qs, best = mi+me+n+j, 1, v
			}
		}
		if q < 0 {
			return certOptimal
		}
		if sx.iters >= maxIter {
			return certIterLimit
		}
		sx.iters++
		// w = N^-T g_q: the entering normal in the basis of normals.
		hq := sx.normal(lp, q, qs, sx.g)
		sx.gnz = sx.gnz[:0]
		for j, v := range sx.g {
			if v != 0 {
				sx.gnz = append(sx.gnz, j)
			}
		}
		for p := range n {
			col := sx.binv[p*n : p*n+n]
			var s float64
			for _, j := range sx.gnz {
				s += sx.g[j] * col[j]
			}
			w[p] = s
		}
		// Harris ratio test over the basic inequalities with w_p > 0.
		theta := math.Inf(1)
		for p := range n {
			if w[p] <= certPivTol || sx.isEq(p) {
				continue
			}
			if t := (math.Max(sx.lam[p], 0) + certDualTol) / w[p]; t < theta {
				theta = t
			}
		}
		if math.IsInf(theta, 1) {
			for p := range n {
				sx.ray[p] = -w[p]
			}
			sx.rayQ, sx.rayS = q, qs
			return certInfeasible
		}
		leave, big := -1, 0.0
		for p := range n {
			if w[p] <= certPivTol || sx.isEq(p) {
				continue
			}
			if math.Max(sx.lam[p], 0)/w[p] <= theta && w[p] > big {
				leave, big = p, w[p]
			}
		}
		t := math.Max(sx.lam[leave], 0) / w[leave]
		for p := range n {
			sx.lam[p] -= t * w[p]
		}
		sx.lam[leave] = t
		// Replace the normal at position leave: column leave of N^-1 is
		// divided by the pivot, the others lose their multiple of it.
		colL := sx.binv[leave*n : leave*n+n]
		inv := 1 / w[leave]
		for j := range colL {
			colL[j] *= inv
		}
		for p := range n {
			if p == leave || w[p] == 0 {
				continue
			}
			col := sx.binv[p*n : p*n+n]
			f := w[p]
			for j, v := range colL {
				col[j] -= f * v
			}
		}
		sx.pos[sx.basis[leave]] = -1
		sx.basis[leave], sx.sgn[leave], sx.pos[q] = q, qs, leave
		sx.h[leave] = hq
		if sx.iters%certRefactor == 0 && !sx.refactor(lp) {
			return certIterLimit
		}
	}
}

func (sx *certSimplex) isEq(p int) bool {
	id := sx.basis[p]
	return id >= sx.mi && id < sx.mi+sx.me
}

// refactor recomputes N^-1 by Gauss-Jordan elimination with partial
// pivoting and the multipliers lam = N^-T c from it. It reports false when
// N is numerically singular (the old inverse is kept).
func (sx *certSimplex) refactor(lp *certLP) bool {
	n := sx.n
	// m holds N (row p = normal of position p) and then N^-1 by columns
	// through the augmented identity kept in a second buffer.
	m := sx.nmat
	for p := range n {
		sx.normal(lp, sx.basis[p], sx.sgn[p], m[p*n:p*n+n])
	}
	sx.inv = certGrow(sx.inv, n*n)
	inv := sx.inv // row-major N^-1 during elimination
	clear(inv)
	for i := range n {
		inv[i*n+i] = 1
	}
	for col := range n {
		piv, big := col, 0.0
		for i := col; i < n; i++ {
			if v := math.Abs(m[i*n+col]); v > big {
				piv, big = i, v
			}
		}
		if big < 1e-13 {
			return false
		}
		if piv != col {
			for j := range n {
				m[piv*n+j], m[col*n+j] = m[col*n+j], m[piv*n+j]
				inv[piv*n+j], inv[col*n+j] = inv[col*n+j], inv[piv*n+j]
			}
		}
		f := 1 / m[col*n+col]
		for j := range n {
			m[col*n+j] *= f
			inv[col*n+j] *= f
		}
		for i := range n {
			if i == col || m[i*n+col] == 0 {
				continue
			}
			g := m[i*n+col]
			for j := range n {
				m[i*n+j] -= g * m[col*n+j]
				inv[i*n+j] -= g * inv[col*n+j]
			}
		}
	}
	// N z = h with z = N^-1 h: column p of N^-1 is inv[., p].
	for p := range n {
		for j := range n {
			sx.binv[p*n+j] = inv[j*n+p]
		}
	}
	for p := range n {
		col := sx.binv[p*n : p*n+n]
		var s float64
		for j, v := range col {
			s += v * lp.c[j]
		}
		if !sx.isEq(p) {
			s = math.Max(s, 0)
		}
		sx.lam[p] = s
	}
	return true
}

// duals writes the multipliers of the rows (lam, clamped at 0) and of the
// equality rows (mu) of the current basis.
func (sx *certSimplex) duals(lam, mu []float64) {
	clear(lam)
	clear(mu)
	for p, id := range sx.basis[:sx.n] {
		switch {
		case id < sx.mi:
			lam[id] = math.Max(sx.lam[p], 0)
		case id < sx.mi+sx.me:
			mu[id-sx.mi] = sx.sgn[p] * sx.lam[p]
		}
	}
}

// rayDuals writes the Farkas ray of a certInfeasible solve as row and
// equality-row multipliers.
func (sx *certSimplex) rayDuals(rho, mu []float64) {
	clear(rho)
	clear(mu)
	put := func(id int, s, v float64) {
		switch {
		case id < sx.mi:
			rho[id] += math.Max(v, 0)
		case id < sx.mi+sx.me:
			mu[id-sx.mi] += s * v
		}
	}
	for p, id := range sx.basis[:sx.n] {
		put(id, sx.sgn[p], sx.ray[p])
	}
	put(sx.rayQ, sx.rayS, 1)
}
