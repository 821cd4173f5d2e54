package verify

import (
	"context"
	"fmt"
	"math/big"

	"github.com/bernamp/bernamp/certfile"
)

// MaxDeltaN caps n = d k of a delta certificate (certfile.KindDeltaPieces),
// hockey's largest (MaxPiecesN): the check costs O(n) big.Float operations
// for the weights and O(sqrt(n)) per vertex (docs/certificates.md).
const MaxDeltaN = 1_000_000

// maxDeltaEps caps eps and |eps_out| of a delta certificate: e^eps is
// enclosed by expBound, which saturates past 2^30 (its enclosures stay
// sound, but the upper end +Inf would meet a 0 in a product).
const maxDeltaEps = certfile.MaxDeltaEps

// checkDeltaPieces checks a certificate of kind certfile.KindDeltaPieces:
// with n = d k, e = e^eps, g = e^eps_out, B_j = C(n, j) c^j (1-c)^(n-j) and
// B'_j = B_(n-j), the file claims
//
//	delta' <= l0 + (l1 + l2) delta <= claim,
//
// which holds (the lifting lemma, the canonical pair and the two-point
// pieces: docs/hockey.md, hockey.PiecesUpper) when l1, l2 >= 0 and
//
//	Phi(p, q) = H(p, q) - l1 h(p, q) - l2 h(q, p) <= l0  on [0, 1]^2,
//	H(p, q)   = sum_j [M_j(p) - g M_j(q)]_+,  M_j(x) = x B_j + (1-x) B'_j,
//	h(p, q)   = [p - e q]_+ + [(1-p) - e (1-q)]_+.
//
// The checker proves, in order: the domain (n = d k <= MaxDeltaN, 0 < c <
// 1/2, 0 <= eps and |eps_out| <= 2^20, 0 <= delta < 1); l1, l2 >= 0; the
// claim at least l0 + (l1 + l2) delta (exact rationals; a claim >= 1 is
// accepted at once, H_g of two distributions is at most 1); and Phi <=
// l0 at every vertex of the cells below.
//
// Why vertices suffice. h(p, q) and h(q, p) are linear on each cell of
// the square cut by the four lines p - e q = 0, p - e q = 1 - e, q - e p
// = 0, q - e p = 1 - e, and H is convex (a linear map followed by the
// jointly convex hockey-stick divergence); so Phi is convex on each
// (convex, polygonal) cell and is largest at one of its vertices. A vertex
// lies on two non-parallel lines among those four and the square's four
// sides; solving each pair in closed form (a = 1/e, s = 1/(1+e)) gives the
// points of the square
//
//	(0,0) (1,1) (0,1) (1,0) (1,a) (a,1) (0,1-a) (1-a,0) (1-s,s) (s,1-s)
//
// (p - e q = 0 meets q - e p = 1 - e at (1-s, s), p - e q = 1 - e meets
// q - e p = 0 at (s, 1-s), the other pairs of slanted lines are parallel
// or meet at (0,0) and (1,1); at e = 1 the four lines are p = q and the
// list is a superset). Checking a superset is only stricter.
//
// Soundness with irrational vertices. a and s are enclosed (a by the
// checker's exp, s = a/(1+a) and 1 - s = 1/(1+a) separately), each
// coordinate x and its complement 1 - x as intervals intersected with [0,
// 1]. Phi at the exact vertex is then bounded above by evaluating it in
// interval arithmetic with directed rounding on those enclosures: each
// M_j from the ends of x, 1 - x, B_j, B'_j (all >= 0) rounded up, minus g
// M_j(q) from the lower ends rounded down, [.]_+ of that upper end, the
// sum rounded up; h from below (x from below, e q from above, [.]_+ of
// the lower end), times l1, l2 >= 0. Every true quantity is inside its
// interval, so the upper end bounds Phi at the exact vertex; no Lipschitz
// or box argument is needed. The upper end is compared with l0 exactly
// (big.Float to big.Rat). The error is absolute, about (4 n + 8) 2^-128
// (1 + l1 + l2) whatever g and e are: a term [M_j(p) - g M_j(q)]_+ whose
// enclosure reaches above 0 has g M_j(q) at most about M_j(p), and the
// M_j(p) add up to 1.
func checkDeltaPieces(ctx context.Context, f *certfile.File) (Report, error) {
	pt, failure, err := parseDeltaPoint(f, MaxDeltaN, "delta")
	if err != nil || failure != "" {
		return Report{Failure: failure}, err
	}
	var rep Report
	reject := rejecter(&rep)
	c, eps, epsOut, claim := pt.c, pt.eps, pt.epsOut, pt.claim
	var ls [3]*big.Rat
	for i, x := range []struct{ name, v string }{{"l0", f.L0}, {"l1", f.L1}, {"l2", f.L2}} {
		if ls[i], err = parseRat(x.name, x.v); err != nil {
			return Report{}, err
		}
	}
	l0, l1, l2 := ls[0], ls[1], ls[2]
	switch {
	case l1.Sign() < 0:
		return reject("l1 = %s is negative", f.L1)
	case l2.Sign() < 0:
		return reject("l2 = %s is negative", f.L2)
	}
	one := big.NewRat(1, 1)
	if claim.Cmp(one) >= 0 {
		rep.Bound = 1
		rep.Accepted = true
		return rep, nil
	}
	bound := new(big.Rat).Add(l1, l2)
	bound.Mul(bound, pt.delta).Add(bound, l0)
	rep.Bound, _ = newUp(53).SetRat(bound).Float64()
	if claim.Cmp(bound) < 0 {
		return reject("claim %s is below the checked bound l0 + (l1 + l2) delta = %s", f.Claim, newUp(64).SetRat(bound).Text('g', 20))
	}
	v, phi, err := deltaVertices(ctx, f.N, c, eps, epsOut, l1, l2, l0)
	if err != nil {
		return rep, err
	}
	if v >= 0 {
		p, q := deltaVertexNames[v][0], deltaVertexNames[v][1]
		return reject("Phi is not proved <= l0 = %s at the vertex (p, q) = (%s, %s): its upper bound is %s",
			f.L0, p, q, phi.Text('g', 20))
	}
	rep.Accepted = true
	return rep, nil
}

// deltaPoint is the point of a delta certificate, as exact rationals.
type deltaPoint struct{ c, eps, delta, epsOut, claim *big.Rat }

// parseDeltaPoint validates f's shape and reads the point and claim of a
// delta certificate (an error wrapping ErrMalformed when the file is
// malformed or a number does not parse) and checks
// its domain: n = d k <= maxN, 0 < c < 1/2, eps >= 0, 0 <= delta < 1,
// eps and |eps_out| <= maxDeltaEps; the failure says which item is not,
// naming the certificate kind of the cap.
func parseDeltaPoint(f *certfile.File, maxN int, kind string) (*deltaPoint, string, error) {
	if err := f.Validate(); err != nil {
		return nil, "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	fields := []struct{ name, v string }{{"c", f.C}, {"eps", f.Eps}, {"delta", f.Delta}, {"eps_out", f.EpsOut}, {"claim", f.Claim}}
	rats := make([]*big.Rat, len(fields))
	for i, x := range fields {
		r, err := parseRat(x.name, x.v)
		if err != nil {
			return nil, "", err
		}
		rats[i] = r
	}
	pt := &deltaPoint{rats[0], rats[1], rats[2], rats[3], rats[4]}
	one, half, epsCap := big.NewRat(1, 1), big.NewRat(1, 2), big.NewRat(maxDeltaEps, 1)
	var failure string
	switch {
	case f.D < 1 || f.K < 1 || f.N != f.D*f.K || f.N/f.K != f.D:
		failure = fmt.Sprintf("n = %d is not d k = %d x %d", f.N, f.D, f.K)
	case f.N > maxN:
		failure = fmt.Sprintf("n = %d exceeds the checker's cap of %d for a %s certificate", f.N, maxN, kind)
	case pt.c.Sign() <= 0 || pt.c.Cmp(half) >= 0:
		failure = fmt.Sprintf("c = %s is not in (0, 1/2)", f.C)
	case pt.eps.Sign() < 0:
		failure = fmt.Sprintf("eps = %s is negative", f.Eps)
	case pt.delta.Sign() < 0 || pt.delta.Cmp(one) >= 0:
		failure = fmt.Sprintf("delta = %s is not in [0, 1)", f.Delta)
	case pt.eps.Cmp(epsCap) > 0 || new(big.Rat).Abs(pt.epsOut).Cmp(epsCap) > 0:
		failure = fmt.Sprintf("eps = %s or eps_out = %s is beyond the checker's range of %d", f.Eps, f.EpsOut, maxDeltaEps)
	}
	return pt, failure, nil
}

// coordinate is an enclosure of a vertex coordinate x and of 1 - x, both
// within [0, 1].
type coordinate struct{ x, xc ival }

// The coordinates of the vertices: 0, 1, a, 1-a, s, 1-s with a = 1/e, s =
// 1/(1+e) (checkDeltaPieces), and the vertices as pairs of them.
const (
	cZero = iota
	cOne
	cA
	cOneMinusA
	cS
	cOneMinusS
	nCoords
)

var deltaVertexList = [...][2]int{
	{cZero, cZero}, {cOne, cOne}, {cZero, cOne}, {cOne, cZero}, {cOne, cA},
	{cA, cOne}, {cZero, cOneMinusA}, {cOneMinusA, cZero}, {cOneMinusS, cS}, {cS, cOneMinusS},
}

var coordNames = [nCoords]string{"0", "1", "1/e", "1-1/e", "1/(1+e)", "e/(1+e)"}

var deltaVertexNames = func() (out [len(deltaVertexList)][2]string) {
	for i, v := range deltaVertexList {
		out[i] = [2]string{coordNames[v[0]], coordNames[v[1]]}
	}
	return out
}()

// unit intersects a with [0, 1] (for enclosures of numbers known to lie in it).
func unit(a ival) ival {
	lo, hi := a.lo, a.hi
	if lo.Sign() < 0 {
		lo = newDown(prec)
	}
	if hi.Cmp(big.NewFloat(1)) > 0 {
		hi = newUp(prec).SetInt64(1)
	}
	return ival{lo, hi}
}

// deltaCoordinates encloses the coordinates at level e = e^eps.
func deltaCoordinates(eps *big.Rat) [nCoords]coordinate {
	zero, one := constIval(0), constIval(1)
	a := ratIval(eps).neg().exp()
	onePlusA := one.add(a)
	s, sc := a.div(onePlusA), one.div(onePlusA) // 1/(1+e), e/(1+e)
	a, ac := unit(a), unit(one.sub(a))
	s, sc = unit(s), unit(sc)
	return [nCoords]coordinate{
		cZero: {zero, one}, cOne: {one, zero}, cA: {a, ac}, cOneMinusA: {ac, a}, cS: {s, sc}, cOneMinusS: {sc, s},
	}
}

// hLower returns a lower bound of h(p, q) = [p - e q]_+ + [(1-p) - e (1-q)]_+.
func hLower(p, q coordinate, e ival) *big.Float {
	out := newDown(prec)
	for _, t := range [2][2]ival{{p.x, q.x}, {p.xc, q.xc}} {
		eq := newUp(prec).Mul(e.hi, t[1].hi)
		if d := subR(t[0].lo, eq, false); d.Sign() > 0 {
			out = addR(out, d, false)
		}
	}
	return out
}

// deltaTailBits: the sums over j skip every j with B_j and B'_j both
// below 2^-deltaTailBits, adding 2^(1-deltaTailBits) for each to every
// vertex's H (the term is at most M_j(p) <= B_j + B'_j).
const deltaTailBits = 256

// deltaVertices bounds Phi from above at every vertex (checkDeltaPieces)
// and returns the first vertex whose bound exceeds l0 with that bound, or
// -1 when every vertex passes. Sums use addR and subR: at eps = 2^20 the
// coordinate 1/e is 2^-1.5e6, and an exact alignment would cost that many
// bits per operation.
func deltaVertices(ctx context.Context, n int, c, eps, epsOut, l1, l2, l0 *big.Rat) (int, *big.Float, error) {
	co := deltaCoordinates(eps)
	e := ratIval(eps).exp()
	gLo := ratIval(epsOut).exp().lo
	tiny := new(big.Float).SetMantExp(big.NewFloat(1), -deltaTailBits)
	w := make([]ival, n+1) // B_j, kept only at or above tiny (else nil ends)
	eachWeight(n, c, func(j int, b ival) {
		if b.hi.Cmp(tiny) >= 0 {
			w[j] = b
		}
	})
	var h [len(deltaVertexList)]*big.Float
	for i := range h {
		h[i] = newUp(prec)
	}
	var mHi, gmLo [nCoords]*big.Float
	skipped := int64(0)
	for j := 0; j <= n; j++ {
		if j%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, nil, err
			}
		}
		b, bp := w[j], w[n-j]
		if b.hi == nil && bp.hi == nil {
			skipped++
			continue
		}
		if b.hi == nil {
			b = ival{newDown(prec), tiny}
		}
		if bp.hi == nil {
			bp = ival{newDown(prec), tiny}
		}
		for i, x := range co {
			// M_j(x) = x B_j + (1-x) B'_j from above; g M_j(x) from below.
			mHi[i] = addR(newUp(prec).Mul(x.x.hi, b.hi), newUp(prec).Mul(x.xc.hi, bp.hi), true)
			m := addR(newDown(prec).Mul(x.x.lo, b.lo), newDown(prec).Mul(x.xc.lo, bp.lo), false)
			gmLo[i] = m.Mul(m, gLo)
		}
		for v, pq := range deltaVertexList {
			if t := subR(mHi[pq[0]], gmLo[pq[1]], true); t.Sign() > 0 {
				h[v] = addR(h[v], t, true)
			}
		}
	}
	tail := newUp(prec).SetInt64(2 * skipped)
	tail.Mul(tail, tiny)
	l1lo, l2lo := ratIval(l1).lo, ratIval(l2).lo
	for v, pq := range deltaVertexList {
		p, q := co[pq[0]], co[pq[1]]
		phi := addR(h[v], tail, true)
		phi = subR(phi, newDown(prec).Mul(l1lo, hLower(p, q, e)), true)
		phi = subR(phi, newDown(prec).Mul(l2lo, hLower(q, p, e)), true)
		r, _ := phi.Rat(nil)
		if r.Cmp(l0) > 0 {
			return v, phi, nil
		}
	}
	return -1, nil, nil
}
