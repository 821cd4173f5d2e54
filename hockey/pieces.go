package hockey

import (
	"context"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/bernamp/bernamp/corner"
)

// MethodPieces: k >= 2 beyond the lift; Lower is the corner program's
// witness and Upper the two-point-pieces bound at n = D K (PiecesUpper),
// both proved.
const MethodPieces = "pieces-canonical-pair"

// MaxPiecesN is the largest n = D K of PiecesUpper (each evaluation is
// O(n)).
const MaxPiecesN = 1_000_000

// PiecesUpper returns a proved upper bound on delta'(EpsOut) at p over the
// whole box, by the lifting lemma and the two-point pieces of
// docs/engine.md, which hold for any jointly convex, 1-homogeneous
// objective with the data-processing inequality, the hockey-stick
// divergence included. With n = D K, the release is bounded by the k = 1
// program at dimension n; any pair (P, Q) on its corners splits into
// balanced pieces on two antipodal corners, the constraints H_e(P||Q) <=
// delta and H_e(Q||P) <= delta (e = e^Eps) add up over the pieces, and the
// objective is subadditive. So if, for masses (p, 1-p) and (q, 1-q) on the
// corners c^n and (1-c)^n,
//
//	Phi(p, q) = H_g(B P || B Q) - l1 h(p, q) - l2 h(q, p) <= l0   on [0, 1]^2,
//
// with h(p, q) = [p - e q]_+ + [(1-p) - e (1-q)]_+ and g = e^EpsOut, then
// delta' <= l0 + (l1 + l2) delta. The check is finite and exact: the four
// lines where h(p, q) and h(q, p) change slope cut the square into convex
// cells on which Phi is convex (H_g(B P || B Q) is convex, the rest
// linear), so Phi is largest at a vertex of a cell, and the vertices are
// the intersections of those lines and the square's sides. The multipliers
// come from a linear program over the vertices (gonum's simplex); the bound
// is then re-evaluated at every vertex with the rounding model of the
// package doc and a Lipschitz margin for the rounding of the vertices
// themselves, so the LP's own accuracy does not matter.
func PiecesUpper(ctx context.Context, p Params) (float64, error) {
	if err := p.Validate(); err != nil {
		return 0, err
	}
	b, err := piecesBoundOf(ctx, p)
	return b.up, err
}

// piecesBoundOf is PiecesUpper with its multipliers (all 0 and up 1
// beyond MaxPiecesN). p is valid.
func piecesBoundOf(ctx context.Context, p Params) (piecesBound, error) {
	pp := newPieces(p)
	if pp == nil {
		return piecesBound{up: 1}, nil
	}
	return pp.bound(ctx, math.Exp(p.EpsOut))
}

// piecesProgram holds what PiecesUpper needs at every level g: the output
// distributions of the two-point pairs at the cell vertices and their
// input divergences.
type piecesProgram struct {
	delta, e  float64
	vs        []vertex
	h, ht     []float64   // h(p, q), h(q, p) at each vertex
	u, v, rel [][]float64 // output masses of P and Q and their errors, per vertex
}

// newPieces returns the program of p at n = D K, nil beyond MaxPiecesN.
func newPieces(p Params) *piecesProgram {
	n := p.D * p.K
	if n > MaxPiecesN || n/p.K != p.D {
		return nil
	}
	e := math.Exp(p.Eps)
	ch := corner.New(1, p.C, []int{n})
	m := ch.Outputs()
	var lc [4][]float64
	lc[0] = ch.LogColumn(make([]float64, m), 0)
	lc[1] = ch.LogColumn(make([]float64, m), 1)
	lc[2], lc[3] = lc[0], lc[0]
	pp := &piecesProgram{delta: p.Delta, e: e, vs: vertices(e)}
	for _, x := range pp.vs {
		u, v, rel := make([]float64, m), make([]float64, m), make([]float64, m)
		mix(lc, [4]float64{x.p, 1 - x.p}, [4]float64{x.q, 1 - x.q}, 1, u, v, rel)
		pp.u, pp.v, pp.rel = append(pp.u, u), append(pp.v, v), append(pp.rel, rel)
		pp.h, pp.ht = append(pp.h, hin(x.p, x.q, e)), append(pp.ht, hin(x.q, x.p, e))
	}
	return pp
}

// upper returns the proved bound at level g (any g >= 0).
func (pp *piecesProgram) upper(ctx context.Context, g float64) (float64, error) {
	b, err := pp.bound(ctx, g)
	return b.up, err
}

// piecesBound is the bound of the pieces program at one level: up =
// min(1, l0 + (l1 + l2) delta rounded up), with Phi <= l0 on the square
// under the rounding model (PiecesUpper).
type piecesBound struct{ up, l0, l1, l2 float64 }

// bound returns the proved bound at level g (any g >= 0) and its
// multipliers.
func (pp *piecesProgram) bound(ctx context.Context, g float64) (piecesBound, error) {
	nv := len(pp.vs)
	hout := make([]float64, nv)
	for i, x := range pp.vs {
		if err := ctx.Err(); err != nil {
			return piecesBound{}, err
		}
		val, pad := hs(pp.u[i], pp.v[i], pp.rel[i], g)
		// H_g moves by at most 2 and 2g per unit of p and of q.
		hout[i] = val + pad + 2*(1+g)*x.err
	}
	// The LP: minimize l0 + delta (l1 + l2) subject to l0 + l1 h + l2 h^T
	// - s = Hout at every vertex, all variables >= 0.
	l1, l2 := multipliers(pp.delta, pp.h, pp.ht, hout)
	// The bound with these multipliers, rounded up: h is formed from
	// differences of numbers in [0, e] (a few ulps of 1 + e each), and a
	// vertex off by x.err in each coordinate moves h by at most
	// 2 (1 + e) x.err (slopes 1 in p and e in q, two terms).
	e := pp.e
	l0 := 0.0
	for i, x := range pp.vs {
		hpad := 4*ulp*(1+e) + 2*(1+e)*x.err
		l0 = math.Max(l0, hout[i]-l1*(pp.h[i]-hpad)-l2*(pp.ht[i]-hpad))
	}
	up := l0 + (l1+l2)*pp.delta
	up += 4 * ulp * (up + 1)
	return piecesBound{math.Min(1, up), l0, l1, l2}, nil
}

// multipliers returns the l1, l2 >= 0 of the LP of bound over the rows
// (h, ht, hout), or 0, 0 when the simplex fails: gonum's lp.Simplex
// returns an error, or panics ("subcolumns of A for supplied initial
// basic singular", at d 1, k 10^5, c 1e-6, eps 50, delta 1e-12, eps' 50,
// where the vertex margins 2 (1 + g) err make hout about 2.5), which is
// recovered. Any l1, l2 >= 0 give a valid bound; the LP only makes it
// small.
func multipliers(delta float64, h, ht, hout []float64) (l1, l2 float64) {
	defer func() {
		if recover() != nil {
			l1, l2 = 0, 0
		}
	}()
	nv := len(hout)
	A := mat.NewDense(nv, 3+nv, nil)
	c := make([]float64, 3+nv)
	c[0], c[1], c[2] = 1, delta, delta
	for i := range hout {
		A.Set(i, 0, 1)
		A.Set(i, 1, h[i])
		A.Set(i, 2, ht[i])
		A.Set(i, 3+i, -1)
	}
	if _, x, err := lp.Simplex(c, A, hout, 1e-12, nil); err == nil && x[1] >= 0 && x[2] >= 0 {
		return x[1], x[2]
	}
	return 0, 0
}

// vertex is a point (p, q) of the square and a bound on its distance, in
// each coordinate, from the exact intersection it stands for.
type vertex struct{ p, q, err float64 }

// vertices returns the intersections, inside the unit square, of the lines
// p - e q = 0, p - e q = 1 - e, q - e p = 0, q - e p = 1 - e (where h(p, q)
// and h(q, p) change slope) and the square's sides, with the square's
// corners among them.
func vertices(e float64) []vertex {
	type line struct{ a, b, r float64 } // a p + b q = r
	ls := []line{
		{1, -e, 0}, {1, -e, 1 - e}, {-e, 1, 0}, {-e, 1, 1 - e},
		{1, 0, 0}, {1, 0, 1}, {0, 1, 0}, {0, 1, 1},
	}
	var vs []vertex
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			x, y := ls[i], ls[j]
			det := x.a*y.b - x.b*y.a
			if det == 0 {
				continue // parallel
			}
			p := (x.r*y.b - x.b*y.r) / det
			q := (x.a*y.r - x.r*y.a) / det
			// Each product carries a few ulps of its size; det likewise.
			size := (math.Abs(x.r)+math.Abs(y.r))*(math.Abs(x.a)+math.Abs(x.b)+math.Abs(y.a)+math.Abs(y.b)) + 1
			err := 8 * ulp * size * (1 + math.Max(math.Abs(p), math.Abs(q))) / math.Abs(det)
			if p < -err || p > 1+err || q < -err || q > 1+err {
				continue
			}
			vs = append(vs, vertex{math.Min(1, math.Max(0, p)), math.Min(1, math.Max(0, q)), err})
		}
	}
	return vs
}

// hin returns h(p, q) = [p - e q]_+ + [(1-p) - e (1-q)]_+, the
// hockey-stick divergence at level e of (p, 1-p) from (q, 1-q).
func hin(p, q, e float64) float64 {
	return math.Max(p-e*q, 0) + math.Max((1-p)-e*(1-q), 0)
}
