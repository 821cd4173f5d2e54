package solver

import (
	"math"

	"github.com/bernamp/bernamp/corner"
	"github.com/bernamp/bernamp/internal/logspace"
)

// Program is the objective of Algorithms 2 and 3 restricted to a few support
// corners (the reduced program of math.md section 3): for masses x, y on the
// support points,
//
//	F(x, y) = sum_o (sum_j x_j K[o,j])^alpha (sum_j y_j K[o,j])^(1-alpha),
//
// where column j of K is the output distribution of point j. Columns are
// stored scaled by their row maximum, K[o,j] = e^(s_o) Kt[o,j] with Kt <= 1,
// so that F is assembled in log space with two logs per output and nothing
// underflows where a row is tiny.
type Program struct {
	alpha float64
	n     int // support points
	outs  int
	s     []float64 // log max_j K[o,j]
	kt    []float64 // Kt[o*n+j]

	lt, lu, lv []float64 // scratch: a Program is not safe for concurrent use
}

// NewProgram returns the program whose support points have the log output
// distributions cols[j] (all of one length). A Program holds scratch space
// and is not safe for concurrent use.
func NewProgram(alpha float64, cols [][]float64) *Program {
	n, outs := len(cols), len(cols[0])
	p := &Program{alpha: alpha, n: n, outs: outs, s: make([]float64, outs), kt: make([]float64, outs*n),
		lt: make([]float64, outs), lu: make([]float64, outs), lv: make([]float64, outs)}
	for o := range outs {
		m := math.Inf(-1)
		for j := range n {
			m = math.Max(m, cols[j][o])
		}
		p.s[o] = m
		for j := range n {
			p.kt[o*n+j] = math.Exp(cols[j][o] - m)
		}
	}
	return p
}

// ConfigProgram returns the reduced program of configuration cf.
func ConfigProgram(cf corner.Config, k int, c, alpha float64) *Program {
	sizes, pts := cf.Groups()
	ch := corner.New(k, c, sizes)
	cols := make([][]float64, len(pts))
	for j, z := range pts {
		cols[j] = ch.LogColumn(make([]float64, ch.Outputs()), z)
	}
	return NewProgram(alpha, cols)
}

// LogF returns log F(x, y), in one pass with a running log-sum-exp.
func (p *Program) LogF(x, y []float64) float64 {
	a, n := p.alpha, p.n
	acc := logspace.NewAcc()
	for o := range p.outs {
		var u, v float64
		row := p.kt[o*n : o*n+n]
		for j, k := range row {
			u += x[j] * k
			v += y[j] * k
		}
		acc.Add(powTerm(a, math.Log(u), math.Log(v)) + p.s[o])
	}
	return acc.Log()
}

// LogFGrad returns log F(x, y) and, when gx and gy are not nil, writes the
// gradient of log F with respect to x and y into them:
//
//	d log F / d x_j = alpha sum_o t_o^(alpha-1) K[o,j] / F,
//	d log F / d y_j = (1-alpha) sum_o t_o^alpha K[o,j] / F,   t_o = u_o / v_o,
//
// each sum formed with weights relative to the largest term, so the
// gradient is finite wherever F is.
func (p *Program) LogFGrad(x, y, gx, gy []float64) float64 {
	a, n := p.alpha, p.n
	// Largest term of the log-sum-exp first (one pass), then the sums.
	lt, lu, lv := p.lt, p.lu, p.lv // a log u + (1-a) log v, log u, log v per output
	top := math.Inf(-1)
	for o := range p.outs {
		var u, v float64
		row := p.kt[o*n : o*n+n]
		for j, k := range row {
			u += x[j] * k
			v += y[j] * k
		}
		lu[o], lv[o] = math.Log(u)+p.s[o], math.Log(v)+p.s[o]
		lt[o] = powTerm(a, lu[o], lv[o])
		top = math.Max(top, lt[o])
	}
	if math.IsInf(top, 0) {
		return top
	}
	var sum float64
	if gx != nil {
		clear(gx)
		clear(gy)
	}
	for o := range p.outs {
		w := math.Exp(lt[o] - top) // term / max term
		sum += w
		if gx == nil || w == 0 {
			continue
		}
		// term = u^a v^(1-a): d/du = a term/u, d/dv = (1-a) term/v, and
		// du/dx_j = K[o,j] = e^(s_o) Kt[o,j].
		du := a * w * math.Exp(p.s[o]-lu[o])
		dv := (1 - a) * w * math.Exp(p.s[o]-lv[o])
		row := p.kt[o*n : o*n+n]
		for j, k := range row {
			gx[j] += du * k
			gy[j] += dv * k
		}
	}
	if gx != nil {
		for j := range gx {
			gx[j] /= sum
			gy[j] /= sum
		}
	}
	return top + math.Log(sum)
}

// logDiv returns (alpha-1) R_alpha(x || y) = log sum_j x_j^alpha y_j^(1-alpha).
func logDiv(alpha float64, x, y []float64) float64 {
	terms := make([]float64, len(x))
	for j := range x {
		terms[j] = powTerm(alpha, math.Log(x[j]), math.Log(y[j]))
	}
	return logspace.Sum(terms)
}

// Objective is log F over the masses of a configuration's support points.
// Both evaluators implement it: *Program (reduced) and *FullProgram.
type Objective interface {
	LogF(x, y []float64) float64
}

// FullProgram evaluates the objective of a configuration on the full corner
// program, the paper's formulation: the masses are placed on their corners
// of {0,1}^d and K is applied to all 2^d corners through its Kronecker
// structure. It gives the same values as the reduced Program at a cost of
// about (k+1)^d * 2d per evaluation instead of prod (k n_t + 1) * 4.
type FullProgram struct {
	ch         *corner.Channel
	alpha      float64
	pts        [corner.Points]int
	X, Y, u, v []float64
	work       []float64
}

// NewFullProgram returns the full-program evaluator of configuration cf.
func NewFullProgram(cf corner.Config, d, k int, c, alpha float64) *FullProgram {
	ch := corner.Full(d, k, c)
	n := max(ch.Inputs(), ch.Outputs())
	return &FullProgram{ch: ch, alpha: alpha, pts: cf.Corners(),
		X: make([]float64, ch.Inputs()), Y: make([]float64, ch.Inputs()),
		u: make([]float64, ch.Outputs()), v: make([]float64, ch.Outputs()), work: make([]float64, 2*n)}
}

// LogF returns log F with x and y the masses of the configuration's points
// (points on the same corner add up).
func (f *FullProgram) LogF(x, y []float64) float64 {
	clear(f.X)
	clear(f.Y)
	for j, z := range f.pts {
		f.X[z] += x[j]
		f.Y[z] += y[j]
	}
	return fullLogF(f.ch, f.alpha, f.X, f.Y, f.u, f.v, f.work)
}

// FullLogF returns log F on the full corner program: x and y are vectors
// over all 2^d corners and K is applied through its Kronecker structure. It
// is the paper's formulation, used to verify witnesses (d up to about 12
// for k = 1).
func FullLogF(ch *corner.Channel, alpha float64, x, y []float64) float64 {
	u := make([]float64, ch.Outputs())
	v := make([]float64, ch.Outputs())
	work := make([]float64, 2*max(ch.Inputs(), ch.Outputs()))
	return fullLogF(ch, alpha, x, y, u, v, work)
}

func fullLogF(ch *corner.Channel, alpha float64, x, y, u, v, work []float64) float64 {
	ch.Apply(u, x, work)
	ch.Apply(v, y, work)
	acc := logspace.NewAcc()
	for o := range u {
		acc.Add(powTerm(alpha, math.Log(u[o]), math.Log(v[o])))
	}
	return acc.Log()
}
