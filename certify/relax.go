package certify

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// cand is a candidate point of relax's LP: F/U, G/E and G^T/E there.
type cand struct{ f, g, h float64 }

// relax re-chooses the multipliers where the first-order ones fail (a
// point above l0 + tau was found). The semi-infinite linear program
//
//	minimize L0 + K1 + K2  over K1, K2 >= 0, L0 free,
//	subject to F/U - K1 G/E - K2 G^T/E <= L0 at every point of the square,
//
// is solved over a grid of candidate points (logits -20..0 for p, -20..20
// for q in steps of 1/2, with the tangent and the violating point) by
// exchange: a few points at a time, adding the worst candidate until none
// exceeds L0 by more than tau/4. Its answer is only a choice: the branch
// and bound then proves the maximum of psi with those multipliers over the
// whole square, and that maximum, not the LP's L0, enters the bound, so
// the result holds whatever the LP's accuracy (the "verified dual"). It
// returns the best round's proof (upper +Inf when nothing was proved) and
// the boxes bounded in all rounds. It leaves pr's multipliers at the last
// round's.
func (pr *problem) relax(ctx context.Context, maxBoxes int, vp, vq float64) lpProof {
	var cs []cand
	add := func(s, t float64) {
		pt := pr.m.eval(fromLogit(s), fromLogit(t), 0, false)
		pr.evals++
		f0, f1 := pr.fsum(pt, 0, kVal), pr.fsum(pt, 1, kVal)
		g := pr.gterm(pt.lg1, 0).v + pr.gterm(pt.lg2, 0).v
		gt := pr.gterm(pt.lh1, 0).v + pr.gterm(pt.lh2, 0).v
		// Far from the tangent G or G^T dwarfs F and psi is hugely
		// negative: such points never bind, and their huge coefficients
		// would make the LP's bases near singular.
		if finiteAll(f0.v, f1.v, g, gt) && g < 1e6 && gt < 1e6 {
			cs = append(cs, cand{f0.v + f1.v, g, gt})
		}
	}
	logit := func(x float64) float64 { return math.Log(x) - math.Log1p(-x) }
	add(-pr.d, pr.d)
	if vp > 0 && vp < 1 && vq > 0 && vq < 1 {
		add(logit(vp), logit(vq))
	}
	for s := -20.0; s <= 0; s += 0.5 {
		for t := -20.0; t <= 20; t += 0.5 {
			add(s, t)
		}
	}
	// Finer around the tangent point, where the maximum sits.
	for i := -25; i <= 25; i++ {
		for j := -25; j <= 25; j++ {
			if s := -pr.d + float64(i)/50; s <= 0 {
				add(s, pr.d+float64(j)/50)
			}
		}
	}
	best := lpProof{upper: math.Inf(1)}
	if ctx.Err() != nil || len(cs) < 2 {
		return best
	}
	// Start from the tangent, the violating point and the candidate with
	// the smallest G + G^T (near the diagonal, where G = G^T = 1): without
	// the last, raising K1 or K2 would lower L0 + K1 + K2 without bound.
	low := 0
	for i, cd := range cs {
		if cd.g+cd.h < cs[low].g+cs[low].h {
			low = i
		}
	}
	active := []int{0, 1, low}
	// Rounds: the LP on the candidates, then the branch and bound with its
	// multipliers; a point the search finds above the LP's L0 joins the
	// candidates for the next round. Every round's bound is proved.
	for round := 0; round < 6 && ctx.Err() == nil; round++ {
		k1, k2, l0, ok := solveLP(cs, active, pr.tau)
		if !ok {
			break
		}
		pr.k1, pr.k2, pr.l0 = k1, k2, l0
		out := pr.search(ctx, maxBoxes)
		best.boxes += out.boxes
		if u := pr.upper(out.sup); out.boxes > 0 && u < best.upper {
			best.upper, best.k1, best.k2, best.l0 = u, k1, k2, l0
			best.slack, best.tiles, best.band = slackFor(l0, pr.tau, out.sup), out.tiles, out.band
		}
		if !out.violated {
			break
		}
		n := len(cs)
		add(logit(out.vp), logit(out.vq))
		if len(cs) == n {
			break
		}
		active = append(active, n)
	}
	return best
}

// lpProof is one round of relax: the bound it proves on Post (nats), the
// multipliers and the slack of psi <= l0 + slack, and, with
// problem.tiling, the tiling of the half square it was proved on; boxes
// counts every round's boxes.
type lpProof struct {
	upper             float64
	k1, k2, l0, slack float64
	tiles             []Tile
	band              *Band
	boxes             int
}

// solveLP solves the LP of relax by exchange over the candidates, starting
// from the active ones: a few rows at a time, adding the worst candidate
// until none exceeds L0 by more than tau/4.
func solveLP(cs []cand, active []int, tau float64) (k1, k2, l0 float64, ok bool) {
	for it := 0; it < 60; it++ {
		// Variables: L0+, L0-, K1, K2, then one slack per active point.
		m := len(active)
		A := mat.NewDense(m, 4+m, nil)
		b := make([]float64, m)
		c := make([]float64, 4+m)
		c[0], c[1], c[2], c[3] = 1, -1, 1, 1
		for r, i := range active {
			// Each row scaled to coefficients of order 1 (the slack
			// absorbs the scale).
			w := 1 / math.Max(1, math.Max(cs[i].g, cs[i].h))
			A.Set(r, 0, w)
			A.Set(r, 1, -w)
			A.Set(r, 2, w*cs[i].g)
			A.Set(r, 3, w*cs[i].h)
			A.Set(r, 4+r, -1)
			b[r] = w * cs[i].f
		}
		_, x, err := lp.Simplex(c, A, b, 1e-12, nil)
		if err != nil {
			return 0, 0, 0, false
		}
		k1, k2 = math.Max(0, x[2]), math.Max(0, x[3])
		l0 = x[0] - x[1]
		worst, wv := -1, l0+tau/4
		for i, cd := range cs {
			if v := cd.f - k1*cd.g - k2*cd.h; v > wv {
				worst, wv = i, v
			}
		}
		if worst < 0 {
			break
		}
		active = append(active, worst)
	}
	return k1, k2, l0, true
}
