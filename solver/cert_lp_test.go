package solver

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// certGonumPrimal solves lp with gonum's lp.Simplex on the standard form of
// lp.Convert (bounds as rows) and returns the optimum of max c'z.
func certGonumPrimal(p *certLP) (float64, error) {
	n, mi, me := p.n, len(p.b), len(p.beq)
	g := mat.NewDense(mi+2*n, n, nil)
	h := make([]float64, mi+2*n)
	for i := range mi {
		g.SetRow(i, p.a[i*n:i*n+n])
		h[i] = p.b[i]
	}
	for j := range n {
		g.Set(mi+j, j, 1)
		h[mi+j] = p.up[j]
		g.Set(mi+n+j, j, -1)
		h[mi+n+j] = -p.lo[j]
	}
	var aeq mat.Matrix // a nil interface when there are no equality rows
	if me > 0 {
		aeq = mat.NewDense(me, n, append([]float64(nil), p.aeq...))
	}
	c := make([]float64, n)
	for j, v := range p.c {
		c[j] = -v
	}
	cs, as, bs := lp.Convert(c, g, h, aeq, append([]float64(nil), p.beq...))
	opt, _, err := lp.Simplex(cs, as, bs, 0, nil)
	return -opt, err
}

// certGonumDual solves the dual of lp with gonum's lp.Simplex,
//
//	minimize  b'lam + beq'(mu+ - mu-) + up'p - lo'q
//	s.t.      A'lam + Aeq'(mu+ - mu-) + p - q = c,   lam, mu+, mu-, p, q >= 0,
//
// already in standard form, and returns the multipliers lam and mu. This is
// the alternative to certSimplex that docs/certificates.md measures.
func certGonumDual(p *certLP) (lam, mu []float64, err error) {
	n, mi, me := p.n, len(p.b), len(p.beq)
	nv := mi + 2*me + 2*n
	A := mat.NewDense(n, nv, nil)
	c := make([]float64, nv)
	for i := range mi {
		c[i] = p.b[i]
		for j := range n {
			A.Set(j, i, p.a[i*n+j])
		}
	}
	for r := range me {
		c[mi+r], c[mi+me+r] = p.beq[r], -p.beq[r]
		for j := range n {
			A.Set(j, mi+r, p.aeq[r*n+j])
			A.Set(j, mi+me+r, -p.aeq[r*n+j])
		}
	}
	for j := range n {
		c[mi+2*me+j], c[mi+2*me+n+j] = p.up[j], -p.lo[j]
		A.Set(j, mi+2*me+j, 1)
		A.Set(j, mi+2*me+n+j, -1)
	}
	_, x, err := lp.Simplex(c, A, append([]float64(nil), p.c...), 0, nil)
	if err != nil {
		return nil, nil, err
	}
	lam = x[:mi]
	mu = make([]float64, me)
	for r := range me {
		mu[r] = x[mi+r] - x[mi+me+r]
	}
	return lam, mu, nil
}

// certHarvest runs the search at one point for up to boxes boxes and
// returns copies of the LPs it solved (at most max).
func certHarvest(d, k int, c, alpha, eps float64, boxes, max int) []*certLP {
	lb := bounds.Lower(d, k, c, alpha, eps)
	r := newCertRun(d, k, c, alpha, eps, lb, DefaultTol, &CertSettings{MaxBoxes: boxes})
	var out []*certLP
	w := r.works[0]
	w.onLP = func(int, certStatus, float64) {
		if len(out) < max {
			q := w.lp
			q.c = append([]float64(nil), q.c...)
			q.a = append([]float64(nil), q.a...)
			q.b = append([]float64(nil), q.b...)
			q.aeq = append([]float64(nil), q.aeq...)
			q.beq = append([]float64(nil), q.beq...)
			q.lo = append([]float64(nil), q.lo...)
			q.up = append([]float64(nil), q.up...)
			out = append(out, &q)
		}
	}
	r.run(context.Background())
	return out
}

// certSolveBound solves p with certSimplex and returns the padded bound of
// its multipliers, the status and the primal objective at its point.
func certSolveBound(p *certLP) (bound float64, st certStatus, primal float64) {
	var sx certSimplex
	st = sx.solve(p, math.Inf(-1), certMaxIter)
	lam, mu := make([]float64, len(p.b)), make([]float64, len(p.beq))
	sx.duals(lam, mu)
	for j, v := range p.c {
		primal += v * sx.z[j]
	}
	return p.dualBound(lam, mu, make([]float64, 2*p.n)), st, primal
}

// On LPs of the search (d = 2, k = 1 and 2) the dual simplex ends optimal
// with a self-certified gap: its point violates no row by more than 1e-8,
// and the padded bound of its multipliers exceeds the objective there by
// no more than the padding and that violation allow.
func TestCertSimplexOptimal(t *testing.T) {
	t.Parallel()
	lps := certHarvest(2, 1, 0.1, 5, 1, 60, 150)
	lps = append(lps, certHarvest(2, 2, 0.1, 5, 0.5, 60, 150)...)
	lps = append(lps, certHarvest(2, 1, 0.1, 50, 1, 60, 150)...)
	optimal := 0
	for i, p := range lps {
		var sx certSimplex
		st := sx.solve(p, math.Inf(-1), certMaxIter)
		if st != certOptimal {
			continue
		}
		optimal++
		z := sx.z
		viol := 0.0
		for r := range p.b {
			s := -p.b[r]
			for j, a := range p.a[r*p.n : r*p.n+p.n] {
				s += a * z[j]
			}
			viol = math.Max(viol, s)
		}
		for r := range p.beq {
			s := -p.beq[r]
			for j, a := range p.aeq[r*p.n : r*p.n+p.n] {
				s += a * z[j]
			}
			viol = math.Max(viol, math.Abs(s))
		}
		for j, v := range z {
			viol = math.Max(viol, math.Max(p.lo[j]-v, v-p.up[j]))
		}
		lam, mu := make([]float64, len(p.b)), make([]float64, len(p.beq))
		sx.duals(lam, mu)
		bound := p.dualBound(lam, mu, make([]float64, 2*p.n))
		var obj, cmag float64
		for j, c := range p.c {
			obj += c * z[j]
			cmag += math.Abs(c)
		}
		if viol > 1e-8 {
			t.Errorf("LP %d: optimal point violates a row by %.3g", i, viol)
		}
		if bound < obj-1e-7*cmag || bound > obj+1e-7*(1+math.Abs(obj)) {
			t.Errorf("LP %d: bound %.15g, objective at the point %.15g", i, bound, obj)
		}
	}
	if optimal < len(lps)*9/10 {
		t.Errorf("only %d of %d LPs solved to optimality", optimal, len(lps))
	}
}

// The certified bound of the dual simplex equals the optimum of the dual LP
// solved by gonum's lp.Simplex on random LPs shaped like the box LPs
// (gonum returns no duals, so its dual solution is fed to the same
// weak-duality evaluator). gonum fails on some of them (ErrUnbounded on a
// feasible primal); those are skipped, and its failures on the search's own
// degenerate LPs (it can cycle) are why certSimplex exists.
func TestCertSimplexAgainstGonum(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(1, 3))
	checked := 0
	for i := range 200 {
		p := certRandomLP(rnd, 2+rnd.IntN(14), 3+rnd.IntN(40))
		bound, st, _ := certSolveBound(p)
		if st != certOptimal {
			t.Errorf("LP %d (feasible by construction): status %v", i, st)
			continue
		}
		lam, mu, err := certGonumDual(p)
		if err != nil {
			continue
		}
		checked++
		want := p.dualBound(lam, mu, make([]float64, 2*p.n))
		if math.Abs(bound-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("LP %d: certSimplex bound %.15g, gonum dual bound %.15g", i, bound, want)
		}
	}
	if checked < 100 {
		t.Errorf("only %d LPs compared", checked)
	}
}

// certRandomLP returns a random feasible LP with n variables in [0, 1], m
// inequality rows and one equality row, shaped like the box LPs.
func certRandomLP(rnd *rand.Rand, n, m int) *certLP {
	p := &certLP{}
	p.reset(n)
	z0 := make([]float64, n) // a feasible point
	for j := range n {
		z0[j] = rnd.Float64()
		p.c[j] = rnd.NormFloat64()
		p.lo[j], p.up[j] = 0, 1
	}
	for range m {
		row := p.row(0)
		var s float64
		for j := range row {
			if j == 0 || rnd.IntN(3) > 0 { // no zero rows: gonum rejects them
				row[j] = rnd.NormFloat64()
				s += row[j] * z0[j]
			}
		}
		p.b[len(p.b)-1] = s + rnd.Float64()
	}
	row := p.eqRow(0)
	var s float64
	for j := range row {
		row[j] = rnd.Float64()
		s += row[j] * z0[j]
	}
	p.beq[0] = s
	return p
}

// Infeasible LPs are proved so by the ray; feasible ones never are.
func TestCertFarkas(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(2, 3))
	proved := 0
	for trial := range 200 {
		p := certRandomLP(rnd, 3+trial%8, 5+trial%20)
		infeasible := trial%2 == 1
		if infeasible {
			// sum z >= n + 1/2 cannot hold on [0, 1]^n.
			row := p.row(-float64(p.n) - 0.5)
			for j := range row {
				row[j] = -1
			}
		}
		var sx certSimplex
		st := sx.solve(p, math.Inf(-1), certMaxIter)
		rho, mu := make([]float64, len(p.b)), make([]float64, len(p.beq))
		r := make([]float64, 2*p.n)
		if st == certInfeasible {
			sx.rayDuals(rho, mu)
			ok := p.farkas(rho, mu, r)
			if ok && !infeasible {
				t.Fatalf("trial %d: a feasible LP was proved infeasible", trial)
			}
			if ok {
				proved++
			}
		} else if infeasible {
			t.Errorf("trial %d: infeasible LP ended with status %v", trial, st)
		}
		// No multipliers prove a feasible LP infeasible: try random ones.
		if !infeasible {
			for range 20 {
				for i := range rho {
					rho[i] = math.Max(0, rnd.NormFloat64())
				}
				mu[0] = rnd.NormFloat64()
				if p.farkas(rho, mu, r) {
					t.Fatalf("trial %d: random multipliers proved a feasible LP infeasible", trial)
				}
			}
		}
	}
	if proved < 90 {
		t.Errorf("only %d of 100 infeasible LPs proved infeasible", proved)
	}
}

// Perturbing the optimal multipliers gives a looser bound that is still
// valid: never below the objective at the solver's (feasible) optimal
// point, which is the LP optimum up to its 1e-10 feasibility tolerance.
func TestCertPerturbedDual(t *testing.T) {
	t.Parallel()
	rnd := rand.New(rand.NewPCG(5, 8))
	lps := certHarvest(2, 1, 0.15, 7, 0.8, 30, 60)
	checked := 0
	for i, p := range lps {
		var sx certSimplex
		if sx.solve(p, math.Inf(-1), certMaxIter) != certOptimal {
			continue
		}
		var opt, cmag float64
		for j, c := range p.c {
			opt += c * sx.z[j]
			cmag += math.Abs(c)
		}
		lam, mu := make([]float64, len(p.b)), make([]float64, len(p.beq))
		sx.duals(lam, mu)
		r := make([]float64, 2*p.n)
		b0 := p.dualBound(lam, mu, r)
		for trial := range 20 {
			l2, m2 := append([]float64(nil), lam...), append([]float64(nil), mu...)
			scale := math.Pow(10, -float64(trial%6)) // perturbations of 1 down to 1e-5
			for j := range l2 {
				l2[j] = math.Max(0, l2[j]*(1+scale*rnd.NormFloat64())+scale*math.Abs(rnd.NormFloat64()))
			}
			for j := range m2 {
				m2[j] += scale * rnd.NormFloat64()
			}
			b1 := p.dualBound(l2, m2, r)
			if b1 < opt-1e-9*cmag {
				t.Fatalf("LP %d: perturbed bound %.15g below the optimum %.15g", i, b1, opt)
			}
			if b1 < b0-1e-9*(1+math.Abs(b0)) {
				t.Fatalf("LP %d: perturbed bound %.15g tighter than the optimal multipliers' %.15g", i, b1, b0)
			}
			checked++
		}
	}
	if checked < 200 {
		t.Errorf("only %d perturbed bounds checked", checked)
	}
}
