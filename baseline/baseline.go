// Package baseline solves the corner program the way the paper describes: a
// generic local optimizer with random starts.
//
// It stands for what one would do without bernamp's reductions and proofs.
// The variables are the masses x, y of P and Q on all 2^d corners
// (Algorithms 2 and 3 of Imola and Chaudhuri), softmax-parametrized,
//
//	x = softmax(a),  y = softmax(b),  a, b in R^(2^d),
//
// and the program
//
//	maximize    R_alpha(K x || K y)
//	subject to  R_alpha(x || y) <= eps,  R_alpha(y || x) <= eps,
//
// with K the channel of corner.Full, is handed to gonum's L-BFGS
// (optimize.Minimize) inside an augmented-Lagrangian loop for the two
// inequality constraints, from random starts drawn uniformly on the simplex.
// The gradient is analytic, with K' applied through the Kronecker structure
// as corner.Channel.Apply applies K, so one evaluation costs about
// 4 d (k+1)^d multiply-adds: the baseline gets a fast evaluator and differs
// from bernamp in how it searches. The program maximizes a convex function,
// so a local optimizer proves nothing: the result is a lower bound on Post
// when it is feasible, and may be far below it.
//
// Every start ends with the pair pulled toward its midpoint (x+y)/2 by the
// least amount that makes both constraints hold (bisection; by joint
// convexity of sum x^alpha y^(1-alpha) the constraints hold at the midpoint
// and the set where they hold is an interval), because an augmented
// Lagrangian approaches the boundary from outside and can end slightly
// infeasible (without the pull, 4 of 32 starts at d = 4, k = 1, c = 0.1,
// alpha = 5, eps = 2 ended beyond the 1e-9 slack of FeasTol). Feasibility
// and the value are then recomputed from the final masses alone.
package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/internal/logspace"
	"github.com/bernamp/bernamp/solver"
)

// DefaultStarts is the number of random starts when Settings.Starts is 0.
// Measured at d <= 3 (bench/results.md), most starts end at the certified
// value, and the fraction falls as d grows: 32 starts give the baseline a
// fair chance without hiding that trend.
const DefaultStarts = 32

// Tolerances of the verdicts, in nats.
const (
	// FeasTol is the relative slack of the feasibility check:
	// R_alpha(P||Q) <= eps (1 + FeasTol) and the same for Q||P.
	FeasTol = 1e-9
	// ReachTol is how close to a reference value a feasible result must
	// come to count as having reached it.
	ReachTol = 1e-6
)

// Augmented-Lagrangian schedule: the penalty starts at rho0 and is
// multiplied by rhoGrow whenever the constraint violation has not fallen
// below violFrac of the previous round's; at most outerRounds rounds, each
// an L-BFGS run of at most innerIters iterations. The loop stops early when
// the violation is below violTol (nats) and the value moved by less than
// valueTol (nats) in a round.
const (
	rho0        = 10.0
	rhoGrow     = 10.0
	violFrac    = 0.25
	outerRounds = 30
	innerIters  = 300
	violTol     = 1e-10
	valueTol    = 1e-12
	rhoMax      = 1e12
)

// ErrTooLarge is wrapped by Solve's error when the full corner program of
// the point has more than 2^20 outputs (solver.FullFits).
var ErrTooLarge = errors.New("baseline: program too large")

// Settings tunes Solve. A nil *Settings means every default.
type Settings struct {
	// Starts is the number of random starts, >= 0; 0 means DefaultStarts.
	Starts int
	// Src is the random source of the starts; nil means a PCG seeded with
	// (1, 1), so that a run is reproducible.
	Src rand.Source
}

// Result is the outcome of Solve. Values are in nats.
type Result struct {
	// Value is R_alpha(B_k(P) || B_k(Q)) of the best feasible start,
	// recomputed from P and Q with solver.FullLogF: a lower bound on Post.
	// It is -Inf when no start ended feasible.
	Value float64
	// Feasible reports whether some start ended feasible (within FeasTol).
	Feasible bool
	// P and Q are the masses of the best feasible start on the 2^d corners,
	// indexed as in package corner; nil when none is feasible.
	P, Q []float64
	// DivPQ and DivQP are R_alpha(P||Q) and R_alpha(Q||P) of P and Q.
	DivPQ, DivQP float64
	// Values holds the value of every start, NaN for a start that ended
	// infeasible, in the order the starts were drawn.
	Values []float64
	// Evals counts the objective evaluations (each with its gradient).
	Evals int
	// Runtime is the wall time of Solve.
	Runtime time.Duration
}

// Reached reports whether r is feasible and its value is within ReachTol
// of ref, the certified value of the point.
func (r *Result) Reached(ref float64) bool {
	return r.Feasible && math.Abs(r.Value-ref) <= ReachTol
}

// Solve runs the baseline at one point: s.Starts random starts, each an
// augmented-Lagrangian loop around L-BFGS, and returns the best feasible
// result. Errors are returned for parameters outside their domain and for
// programs with more than 2^20 outputs (ErrTooLarge).
// A cancelled ctx stops after the running start; the Result holds the
// starts finished so far.
func Solve(ctx context.Context, d, k int, c, alpha, eps float64, s *Settings) (*Result, error) {
	if err := check.Point(d, k, c, alpha, eps); err != nil {
		return nil, fmt.Errorf("baseline.Solve: %w", err)
	}
	starts := DefaultStarts
	var src rand.Source = rand.NewPCG(1, 1)
	if s != nil {
		if s.Starts < 0 {
			return nil, fmt.Errorf("baseline.Solve: starts is %d, must be >= 0", s.Starts)
		}
		if s.Starts > 0 {
			starts = s.Starts
		}
		if s.Src != nil {
			src = s.Src
		}
	}
	if !solver.FullFits(d, k) {
		return nil, fmt.Errorf("baseline.Solve: %w: d = %d, k = %d: (k+1)^d > 2^20 outputs", ErrTooLarge, d, k)
	}
	start := time.Now()
	rnd := rand.New(src)
	p := newProgram(d, k, c, alpha, eps)
	res := &Result{Value: math.Inf(-1)}
	n := p.n
	z := make([]float64, 2*n)
	for range starts {
		if ctx.Err() != nil {
			break
		}
		// Uniform on the simplex: normalized exponential variates, whose
		// logs are the softmax parameters.
		for i := range z {
			z[i] = math.Log(rnd.ExpFloat64())
		}
		x, y := p.solve(z)
		v, ok := p.verify(x, y)
		if !ok {
			res.Values = append(res.Values, math.NaN())
			continue
		}
		res.Values = append(res.Values, v.value)
		if v.value > res.Value {
			res.Value, res.Feasible = v.value, true
			res.P, res.Q = slices.Clone(x), slices.Clone(y)
			res.DivPQ, res.DivQP = v.divPQ, v.divQP
		}
	}
	res.Evals = p.evals
	res.Runtime = time.Since(start)
	return res, nil
}

// program holds the corner program of one point and the scratch of its
// evaluation, so that an evaluation allocates nothing.
type program struct {
	n, outs    int
	alpha, eps float64
	ch         *corner.Channel
	w1d        [2][]float64 // one coordinate's channel: w1d[bit][m] = P(count m | bit)
	evals      int

	// scratch
	la, lb, x, y, u, v, w, w1, w2, h, hv, work []float64
	gx, gy                                     []float64

	// cache of the last evaluation, for Func and Grad at the same point
	cz     []float64
	cf     float64
	cg     []float64
	cvalue float64    // log F / (alpha-1) at cz
	cg1    [2]float64 // constraint values at cz: R(x||y) - eps, R(y||x) - eps

	// augmented Lagrangian state
	lam [2]float64
	rho float64
}

func newProgram(d, k int, c, alpha, eps float64) *program {
	ch := corner.Full(d, k, c)
	n, outs := ch.Inputs(), ch.Outputs()
	p := &program{n: n, outs: outs, alpha: alpha, eps: eps, ch: ch}
	one := corner.New(k, c, []int{1})
	for b := range p.w1d {
		p.w1d[b] = one.LogColumn(make([]float64, k+1), b)
		for m, l := range p.w1d[b] {
			p.w1d[b][m] = math.Exp(l)
		}
	}
	f := func(l int) []float64 { return make([]float64, l) }
	p.la, p.lb, p.x, p.y = f(n), f(n), f(n), f(n)
	p.w1, p.w2, p.gx, p.gy = f(n), f(n), f(n), f(n)
	p.u, p.v, p.w, p.h, p.hv = f(outs), f(outs), f(outs), f(outs), f(outs)
	p.work = f(2 * max(n, outs))
	p.cz, p.cg = f(2*n), f(2*n)
	p.invalidate()
	return p
}

// logSoftmax writes log softmax(a) into la and softmax(a) into x.
func logSoftmax(la, x, a []float64) {
	lse := logspace.Sum(a)
	for i, ai := range a {
		la[i] = ai - lse
		x[i] = math.Exp(la[i])
	}
}

// eval returns the augmented Lagrangian at z = (a, b) and writes its
// gradient into g (when g is not nil). In nats, with R the value
// log F / (alpha-1) of the output pair and g_i the constraint excesses
// R_alpha(x||y) - eps and R_alpha(y||x) - eps,
//
//	L = -R + sum_i ( max(0, lam_i + rho g_i)^2 - lam_i^2 ) / (2 rho).
//
// The gradient is exact: with W_m = u_m^alpha v_m^(1-alpha) / F,
//
//	dR/dx_z = alpha/(alpha-1) sum_m W_m K[m,z] / u_m,
//	dR/dy_z = -sum_m W_m K[m,z] / v_m,
//
// and through the softmax d/da_i = x_i (d/dx_i - sum_j x_j d/dx_j); with
// w_z = x_z^alpha y_z^(1-alpha) / sum, dg_1/da_i = alpha/(alpha-1) (w_i -
// x_i) and dg_1/db_i = -(w_i - y_i).
func (p *program) eval(z, g []float64) float64 {
	n, a := p.n, p.alpha
	p.evals++
	logSoftmax(p.la, p.x, z[:n])
	logSoftmax(p.lb, p.y, z[n:])
	p.ch.Apply(p.u, p.x, p.work)
	p.ch.Apply(p.v, p.y, p.work)
	for m := range p.outs {
		p.w[m] = a*math.Log(p.u[m]) + (1-a)*math.Log(p.v[m])
	}
	logF := logspace.Sum(p.w)
	value := logF / (a - 1)
	g1 := constraint(p.w1, a, p.la, p.lb)/(a-1) - p.eps
	g2 := constraint(p.w2, a, p.lb, p.la)/(a-1) - p.eps
	L := -value
	var mult [2]float64
	for i, gi := range [2]float64{g1, g2} {
		mult[i] = math.Max(0, p.lam[i]+p.rho*gi)
		L += (mult[i]*mult[i] - p.lam[i]*p.lam[i]) / (2 * p.rho)
	}
	p.cvalue, p.cg1 = value, [2]float64{g1, g2}
	if g == nil {
		return L
	}
	// h_m = W_m / u_m and hv_m = W_m / v_m; W_m = exp(w_m - log F).
	for m := range p.outs {
		W := math.Exp(p.w[m] - logF)
		p.h[m] = W / p.u[m]
		p.hv[m] = W / p.v[m]
	}
	p.applyT(p.gx, p.h)
	p.applyT(p.gy, p.hv)
	// d(-R)/dx_z = -alpha/(alpha-1) gx_z; sum_j x_j gx_j = sum_m W_m = 1,
	// so through the softmax d(-R)/da_i = -alpha/(alpha-1) x_i (gx_i - 1),
	// and d(-R)/db_i = y_i (gy_i - 1).
	ga, gb := g[:n], g[n:]
	for i := range n {
		ga[i] = -a / (a - 1) * p.x[i] * (p.gx[i] - 1)
		gb[i] = p.y[i] * (p.gy[i] - 1)
	}
	for i := range n {
		ga[i] += mult[0]*(a/(a-1)*(p.w1[i]-p.x[i])) - mult[1]*(p.w2[i]-p.x[i])
		gb[i] += -mult[0]*(p.w1[i]-p.y[i]) + mult[1]*(a/(a-1)*(p.w2[i]-p.y[i]))
	}
	return L
}

// applyT writes K' h into dst (length 2^d) for h over the (k+1)^d outputs,
// through the Kronecker structure K = W x ... x W (d factors, W of size
// (k+1) x 2, coordinate 0 outermost as in corner.Channel.Apply), one axis at
// a time: about (k+1)^d 2 d multiply-adds instead of (k+1)^d 2^d.
func (p *program) applyT(dst, h []float64) {
	w := p.w1d
	t1 := len(w[0])
	d := bits.Len(uint(p.n)) - 1
	size := max(p.n, p.outs)
	src, nxt := p.work[:size], p.work[size:2*size]
	copy(src, h)
	// Before axis g: axes < g have size 2, axes >= g have size t1.
	outer, inner := 1, p.outs/t1
	for range d {
		for o := range outer {
			for i := range inner {
				var s0, s1 float64
				for m := range t1 {
					v := src[(o*t1+m)*inner+i]
					s0 += w[0][m] * v
					s1 += w[1][m] * v
				}
				nxt[(o*2+0)*inner+i] = s0
				nxt[(o*2+1)*inner+i] = s1
			}
		}
		outer *= 2
		inner /= t1
		src, nxt = nxt, src
	}
	copy(dst, src[:p.n])
}

// constraint returns log sum_z x_z^alpha y_z^(1-alpha) from lx = log x and
// ly = log y, and writes the weights w_z = x_z^alpha y_z^(1-alpha) / sum
// into w.
func constraint(w []float64, alpha float64, lx, ly []float64) float64 {
	for z := range lx {
		w[z] = alpha*lx[z] + (1-alpha)*ly[z]
	}
	l := logspace.Sum(w)
	for z := range w {
		w[z] = math.Exp(w[z] - l)
	}
	return l
}

// cached evaluates at z unless z is the point of the last evaluation.
func (p *program) cached(z []float64) {
	if slices.Equal(z, p.cz) {
		return
	}
	copy(p.cz, z)
	p.cf = p.eval(z, p.cg)
}

// solve runs the augmented-Lagrangian loop from z (modified) and returns
// the final masses after the feasibility repair.
func (p *program) solve(z []float64) (x, y []float64) {
	p.lam, p.rho = [2]float64{}, rho0
	p.invalidate()
	prob := optimize.Problem{
		Func: func(z []float64) float64 { p.cached(z); return p.cf },
		Grad: func(g, z []float64) { p.cached(z); copy(g, p.cg) },
	}
	settings := &optimize.Settings{MajorIterations: innerIters, GradientThreshold: 1e-12}
	prevViol, prevValue := math.Inf(1), math.Inf(-1)
	for range outerRounds {
		r, err := optimize.Minimize(prob, z, settings, &optimize.LBFGS{})
		if r != nil && !math.IsNaN(r.F) && !math.IsInf(r.F, 0) {
			copy(z, r.X)
		}
		_ = err // a failed line search ends this round; its best point is kept
		p.cached(z)
		g1, g2 := p.cg1[0], p.cg1[1]
		viol := math.Max(0, math.Max(g1, g2))
		for i, gi := range [2]float64{g1, g2} {
			p.lam[i] = math.Max(0, p.lam[i]+p.rho*gi)
		}
		p.invalidate() // the Lagrangian changed: drop the cache
		if viol <= violTol && math.Abs(p.cvalue-prevValue) <= valueTol {
			break
		}
		if viol > violFrac*prevViol && p.rho < rhoMax {
			p.rho *= rhoGrow
		}
		prevViol, prevValue = viol, p.cvalue
	}
	x, y = make([]float64, p.n), make([]float64, p.n)
	logSoftmax(p.la, x, z[:p.n])
	logSoftmax(p.lb, y, z[p.n:])
	repair(x, y, p.alpha, p.eps)
	return x, y
}

// invalidate drops the evaluation cache.
func (p *program) invalidate() {
	for i := range p.cz {
		p.cz[i] = math.NaN()
	}
}

// repair replaces (x, y) by ((1-s) x + s m, (1-s) y + s m), m = (x+y)/2,
// with the least s in [0, 1] (to 60 halvings) at which both constraints
// hold exactly in float64 by divOK; s = 1 (x = y = m) always does.
func repair(x, y []float64, alpha, eps float64) {
	if divOK(x, y, alpha, eps) {
		return
	}
	n := len(x)
	xs, ys := make([]float64, n), make([]float64, n)
	mix := func(s float64) {
		for i := range n {
			m := (x[i] + y[i]) / 2
			xs[i], ys[i] = (1-s)*x[i]+s*m, (1-s)*y[i]+s*m
		}
	}
	lo, hi := 0.0, 1.0 // infeasible, feasible
	for range 60 {
		mid := (lo + hi) / 2
		mix(mid)
		if divOK(xs, ys, alpha, eps) {
			hi = mid
		} else {
			lo = mid
		}
	}
	mix(hi)
	copy(x, xs)
	copy(y, ys)
}

// divOK reports whether R_alpha(x||y) and R_alpha(y||x) are <= eps.
func divOK(x, y []float64, alpha, eps float64) bool {
	return renyi(alpha, x, y) <= eps && renyi(alpha, y, x) <= eps
}

// Renyi returns R_alpha(x || y) = log( sum_z x_z^alpha y_z^(1-alpha) ) /
// (alpha-1) in nats for alpha > 1, computed in log space: terms with x_z =
// 0 are 0, and x_z > 0 = y_z gives +Inf. It is exact up to rounding.
func renyi(alpha float64, x, y []float64) float64 {
	acc := logspace.NewAcc()
	for z := range x {
		switch {
		case x[z] == 0:
		case y[z] == 0:
			return math.Inf(1)
		default:
			acc.Add(alpha*math.Log(x[z]) + (1-alpha)*math.Log(y[z]))
		}
	}
	return acc.Log() / (alpha - 1)
}

type verdict struct{ value, divPQ, divQP float64 }

// verify recomputes both constraints and the value from the masses alone
// and reports whether the pair is feasible within FeasTol.
func (p *program) verify(x, y []float64) (verdict, bool) {
	v := verdict{divPQ: renyi(p.alpha, x, y), divQP: renyi(p.alpha, y, x)}
	lim := p.eps * (1 + FeasTol)
	if !(v.divPQ <= lim && v.divQP <= lim) {
		return v, false
	}
	v.value = solver.FullLogF(p.ch, p.alpha, x, y) / (p.alpha - 1)
	return v, !math.IsNaN(v.value) && !math.IsInf(v.value, 0)
}
