// Package certify proves upper bounds on Post over the whole box
// [c, 1-c]^d by the two-point-pieces inequality (docs/engine.md; math.md
// 3b and 3c).
//
// Every (d, k) is bounded by the k = 1 program at n = d k (the lifting
// lemma), and that program is bounded by any l0, l1, l2 with l1, l2 >= 0
// and
//
//	F_n(p, q) <= l0 + l1 G(p, q) + l2 G(q, p)   for all (p, q) in [0, 1]^2,
//
// namely Post <= log(l0 + (l1 + l2) E) / (alpha - 1), E = exp((alpha-1) eps)
// (the pieces lemma). Certify takes l1, l2 from the first-order conditions
// at the Theorem 4 pair (p*, 1-p*), where the bound equals the Theorem 4
// lower bound LB, raises l0 by a slack of tol/2 in nats, and proves the
// inequality by a two-dimensional branch and bound in logit coordinates.
// Where it closes, LB <= Post <= Upper <= LB + tol: the paper's conjecture
// Post = LB holds at that point, for every d and k with d k = n.
//
// A box's bound is the least of its enclosures (docs/certificates.md,
// "Pieces"): monotone (each half of F and G at its extreme corner), paired
// (each half of F against the same half of G, whose ratio is monotone),
// the split pairing (paired for F's terms nearest G's, monotone for the
// rest), a Taylor form of order 3 with paired ranges of the third
// derivatives, near the edges a Taylor form in one variable, and near the
// diagonal the curvature bound (psi is constant on p = q, with a zero
// derivative across it).
//
// Notation: g(u, v) = u^alpha v^(1-alpha), G(p, q) = g(p, q) + g(1-p, 1-q),
// F_n(p, q) = sum_j C(n, j) g(p b_j + (1-p) b'_j, q b_j + (1-q) b'_j) with
// b_j = c^j (1-c)^(n-j), b'_j = c^(n-j) (1-c)^j.
package certify

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/floatbits"
	"github.com/bernamp/bernamp/internal/logspace"
)

// DefaultTol is the gap Upper - LB, in nats, aimed at when Settings.Tol is 0.
const DefaultTol = 1e-9

// DefaultMaxBoxes caps the branch and bound when Settings.MaxBoxes is 0.
const DefaultMaxBoxes = 250_000

// MaxN is the largest n = d k Certify accepts (the model holds n/2 weights;
// an evaluation sums O(sqrt(n)) of them, docs/reach.md).
const MaxN = 1_000_000

// ErrInput is wrapped by every error about a parameter outside its domain.
var ErrInput = errors.New("certify: invalid input")

// Settings tunes Certify. A nil *Settings means every default.
type Settings struct {
	Tol      float64 // aimed gap Upper - LB in nats, > 0; 0 means DefaultTol
	MaxBoxes int     // boxes bounded at most; 0 means DefaultMaxBoxes
	Tiling   bool    // keep the closed boxes in Result.Tiling (for an exported certificate)
	// Fault moves the proof off its usual path, for tests of the
	// fallbacks and their certificates; the zero value changes nothing.
	Fault Fault
}

// Fault is a deliberate change to Certify's proof, for tests only: the
// fallback proofs (MethodPiecesMax, MethodPiecesLP) run at no point of
// the paper's grids or the surveys, so their certificates are exercised
// at points where a moved multiplier makes the inequality fail. Every
// bound proved under a Fault is still a proved bound (only the choice of
// multipliers changes), just a weaker one.
type Fault struct {
	// MoveL1 multiplies the first-order l1 by 1 + MoveL1 (l0 is re-set
	// to psi at the tangent point), so that the inequality fails near it.
	MoveL1 float64
	// NoRelax skips the semi-infinite LP: where the inequality fails the
	// bound is pieces-max.
	NoRelax bool
}

// Tile is a closed box of the search in logit coordinates, p = 1/(1+e^-S)
// and q = 1/(1+e^-T): on [S1, S2] x [T1, T2] the normalized inequality of
// Result holds. Ends may be infinite (the square's edges).
type Tile struct{ S1, S2, T1, T2 float64 }

// Band is the proved diagonal band of a tiling (diagonal.go): psi <= l0 +
// tau on {s in [S1, S2], |t - s| <= Beta}, by boxes in (s, r = t - s)
// that partition [S1, S2] x [-Beta, Beta], each a Tile whose T1, T2 hold
// its range of r.
type Band struct {
	Beta, S1, S2 float64
	Boxes        []Tile
}

// Status says what a Result proves.
type Status int

const (
	// Proved: Upper - LB <= Tol (Post = LB within Tol), usually because
	// the inequality holds with the first-order multipliers.
	Proved Status = iota
	// Open: the search ended (box limit, context, or a point where the
	// inequality fails) before proving it; Upper is the bound proved by the
	// boxes bounded so far (it may be the closed form).
	Open
)

func (s Status) String() string {
	if s == Proved {
		return "proved"
	}
	return "open"
}

// Method names of Result.Method.
const (
	MethodPieces    = certfile.MethodPieces    // the two-point-pieces inequality, proved by branch and bound
	MethodClosed    = "closed-form"            // min(eps, n r_alpha(c)) is already within Tol of LB
	MethodPiecesMax = certfile.MethodPiecesMax // the inequality failed; l0 raised to a proved maximum
	MethodPiecesLP  = certfile.MethodPiecesLP  // the inequality failed; multipliers re-chosen by the semi-infinite LP (relax), its maximum proved
	MethodNone      = "closed-form-top"        // nothing better than the closed form was proved
)

// Result is what Certify proves at one point. Values in nats unless said.
type Result struct {
	N                 int
	C, Alpha, Eps     float64
	LB                float64 // Theorem 4 lower bound at n (below Post)
	Upper             float64 // proved upper bound on Post_{n,1}, hence on Post for every d k = n (above Post)
	Status            Status
	Method            string
	PStar             float64 // the Theorem 4 mass p* (r_alpha(p*) = eps)
	L0, L1, L2, Slack float64 // the normalized inequality F_n/U - L1 G/E - L2 G^T/E <= L0 + Slack, U = F_n(p*, 1-p*), of the proof behind Upper (L0 + Slack its proved maximum for the pieces-max and pieces-lp methods)
	Boxes             int     // boxes bounded
	Evals             int     // evaluations of F_n (each O(sqrt(n)) terms from n = 400 on, O(n) below)
	LogU              float64 // log F_n(p*, 1-p*) as used: Upper = (LogU + log(L0+Slack+L1+L2)) / (Alpha-1), rounded up
	Tiling            []Tile  // with Settings.Tiling and Method pieces, pieces-max or pieces-lp: boxes tiling s <= 0 (p <= 1/2) on which that proof holds, in the order closed; psi(p, q) = psi(1-p, 1-q) covers the rest
	Band              *Band   // with Tiling: the diagonal band that proof used (nil for none); the tiles inside it are closed by it
	Violation         bool    // a point was found where the inequality with these multipliers fails
	ViolationP        float64 // that point (p, q), when Violation
	ViolationQ        float64
	Seconds           float64
	// Groups are the bit groups (n_g bits sharing c_g, in increasing c_g)
	// of CertifyRanges with several distinct c_l; nil otherwise.
	Groups []Group
}

// Group is n bits sharing c (CertifyRanges).
type Group struct {
	N int
	C float64
}

// Certify proves an upper bound on Post_{alpha,1}(eps) at n = d k. It
// returns an error only for parameters outside their domain (n in
// 1..MaxN, 0 < c < 1/2, alpha > 1 finite, eps >= 0 finite, tol > 0); a
// cancelled ctx ends the search with the bound proved so far (Status Open).
// The work is sequential and deterministic.
func Certify(ctx context.Context, n int, c, alpha, eps float64, s *Settings) (r Result, err error) {
	if n < 1 || n > MaxN {
		return Result{}, fmt.Errorf("%w: n is %d, must be in 1..%d", ErrInput, n, MaxN)
	}
	p, err := check.NewValidPoint(n, 1, c, alpha, eps)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrInput, err)
	}
	return CertifyAt(ctx, p, s)
}

// CertifyAt is Certify at n = p.N() for a point validated once where it
// entered (the bound depends on d and k only through n = d k); it checks
// nothing of p again.
func CertifyAt(ctx context.Context, p check.ValidPoint, s *Settings) (r Result, err error) {
	n, c, alpha, eps := p.N(), p.C(), p.Alpha(), p.Eps()
	tol, maxBoxes, tiling := DefaultTol, DefaultMaxBoxes, s != nil && s.Tiling
	if s != nil && s.Tol != 0 {
		tol = s.Tol
	}
	if s != nil && s.MaxBoxes != 0 {
		maxBoxes = s.MaxBoxes
	}
	if n < 1 || n > MaxN {
		return Result{}, fmt.Errorf("%w: n is %d, must be in 1..%d", ErrInput, n, MaxN)
	}
	if !(tol > 0) || math.IsInf(tol, 1) {
		return Result{}, fmt.Errorf("%w: tol is %v, must be > 0 and finite", ErrInput, tol)
	}
	start := time.Now()
	ub := bounds.UpperAt(p).Value()
	r = Result{N: n, C: c, Alpha: alpha, Eps: eps, LB: bounds.LowerAt(p),
		Upper: ub, Status: Open, Method: MethodNone, PStar: bounds.PAt(p)}
	defer func() { r.Seconds = time.Since(start).Seconds() }()
	if ub-r.LB <= tol {
		r.Status, r.Method = Proved, MethodClosed
		return r, nil
	}
	pr := newProblemModel(newModel(n, c, alpha), alpha, eps, bounds.LogitAt(p), tol)
	if s != nil {
		pr.fault(s.Fault)
	}
	r.L0, r.L1, r.L2, r.Slack = pr.l0, pr.k1, pr.k2, pr.tau
	r.LogU = pr.logU
	pr.tiling = tiling
	pr.prove(ctx, &r, maxBoxes)
	// The bound is proved whether or not every box closed below the
	// target: within tol of LB it proves Post = LB within tol.
	if r.Upper-r.LB <= tol {
		r.Status = Proved
	}
	return r, nil
}

// prove runs the branch and bound (and, where the inequality fails, the
// relaxation) and lowers r.Upper to what it proves. Whichever proof gives
// r.Upper, r holds its multipliers and right side (L0, L1, L2, Slack) and,
// with problem.tiling, its tiling: Result.File exports exactly that proof.
func (pr *problem) prove(ctx context.Context, r *Result, maxBoxes int) {
	out := pr.search(ctx, maxBoxes)
	r.Boxes, r.Evals = out.boxes, pr.evals
	if out.violated {
		r.Violation, r.ViolationP, r.ViolationQ = true, out.vp, out.vq
	}
	if u := pr.upper(out.sup); u < r.Upper {
		r.Upper = u
		r.Method = MethodPieces
		if out.violated {
			r.Method = MethodPiecesMax
		}
		r.Slack = slackFor(pr.l0, pr.tau, out.sup)
		r.Tiling, r.Band = out.tiles, out.band
	}
	if out.violated && ctx.Err() == nil && !pr.noRelax {
		lp := pr.relax(ctx, maxBoxes, out.vp, out.vq)
		r.Boxes += lp.boxes
		if lp.boxes > 0 && lp.upper < r.Upper {
			r.Upper, r.Method = lp.upper, MethodPiecesLP
			r.L0, r.L1, r.L2, r.Slack = lp.l0, lp.k1, lp.k2, lp.slack
			r.Tiling, r.Band = lp.tiles, lp.band
		}
		r.Evals = pr.evals
	}
}

// slackFor returns the slack of a proof whose search proved psi <= sup
// with psi's value l0 at the tangent: tau where sup is the target l0 + tau
// (the search closed), else the float64 sup - l0 raised until l0 + slack
// >= sup holds exactly, so that the exported inequality psi <= L0 + Slack
// is implied by the proof.
func slackFor(l0, tau, sup float64) float64 {
	if sup == l0+tau {
		return tau
	}
	slack := sup - l0
	want := new(big.Rat).SetFloat64(sup)
	for i := 0; i < 4; i++ {
		if new(big.Rat).Add(new(big.Rat).SetFloat64(l0), new(big.Rat).SetFloat64(slack)).Cmp(want) >= 0 {
			break
		}
		slack = math.Nextafter(slack, math.Inf(1))
	}
	return slack
}

// problem is the normalized inequality. With U = F_n(p*, 1-p*) (so that
// log U / (alpha-1) is LB) and the unit E for G, it reads
//
//	psi(p, q) = F_n/U - k1 G/E - k2 G^T/E <= l0 + tau   on [0, 1]^2,
//
// with k1 = l1 E/U, k2 = l2 E/U >= 0 and l0 = psi(p*, 1-p*): every term is
// of order 1 near the tangent point, whatever alpha and eps are. If it
// holds, F(P, Q) <= U (l0 + tau + k1 + k2) for every feasible pair.
type problem struct {
	m           *model
	alpha, logE float64
	logU        float64 // log F_n(p*, 1-p*)
	logGStar    float64 // log G(p*, 1-p*) (= log E up to the rounding of p*)
	logHStar    float64 // log G^T(p*, 1-p*)
	d           float64 // the Theorem 4 logit: p* = 1/(1+e^d)
	k1, k2      float64
	l0, tau     float64
	evals       int
	tiling      bool                  // keep closed boxes
	noRelax     bool                  // Fault.NoRelax
	cache       map[[2]float64]*point // evaluations by their logits (s, t), shared by boxes that meet there (at most cacheMax, then cleared)
	splitBuf    []sum                 // splitPaired's scratch
	splitPre    []sum                 // splitPaired's scratch
	splitLazy   []bool                // splitPaired's scratch
	splitMemos  [2]uvMemo             // splitPaired's scratch
	diag        val                   // psi(p, p), the same at every p (curvature), for the multipliers (k1, k2) = diagAt
	diagAt      [2]float64            // the multipliers diag was formed for
	proc        procConsts            // processed's constants
}

func newProblem(n int, c, alpha, eps, tol float64) *problem {
	return newProblemModel(newModel(n, c, alpha), alpha, eps, bounds.Logit(alpha, eps), tol)
}

// newProblemModel is the problem of model m at the Theorem 4 pair's logit
// D = bounds.Logit(alpha, eps).
func newProblemModel(m *model, alpha, eps, D, tol float64) *problem {
	pr := &problem{m: m, alpha: alpha, logE: (alpha - 1) * eps}
	pr.d = D
	t := pr.m.eval(fromLogit(-D), fromLogit(D), 1, true)
	pr.evals++
	f := t.f[0][kVal]
	f.add(t.f[1][kVal].log(), 0)
	pr.logU = f.log()
	fp, fq, gp, gq, hp, hq := pr.grads(t)
	// Solve [gp hp; gq hq] [k1; k2] = [fp; fq] (Cramer); the system is
	// well conditioned at the tangent point (G and G^T pull apart).
	det := gp*hq - hp*gq
	pr.k1 = math.Max(0, (fp*hq-hp*fq)/det)
	pr.k2 = math.Max(0, (gp*fq-fp*gq)/det)
	if math.IsNaN(pr.k1) || math.IsNaN(pr.k2) {
		pr.k1, pr.k2 = 1, 0 // data processing: F_n <= G
	}
	pr.logGStar, pr.logHStar = logspace.Add(t.lg1, t.lg2), logspace.Add(t.lh1, t.lh2)
	pr.l0 = 1 - pr.k1*math.Exp(pr.logGStar-pr.logE) - pr.k2*math.Exp(pr.logHStar-pr.logE)
	pr.tau = 0.5 * math.Expm1((alpha-1)*tol)
	return pr
}

// fault applies f (see Fault) to the first-order multipliers.
func (pr *problem) fault(f Fault) {
	if f.MoveL1 != 0 {
		pr.k1 *= 1 + f.MoveL1
		pr.l0 = 1 - pr.k1*math.Exp(pr.logGStar-pr.logE) - pr.k2*math.Exp(pr.logHStar-pr.logE)
	}
	pr.noRelax = f.NoRelax
}

// grads returns the gradients of F/U, G/E and G^T/E at t (no error bounds:
// for the multipliers, which need none), from the same half sums and
// falling-factorial coefficients as coefs: d/dp is kind kU, d/dq kind kV,
// and the second half of each function enters with sign -1.
func (pr *problem) grads(t *point) (fp, fq, gp, gq, hp, hq float64) {
	a := pr.alpha
	var d [2][3]float64 // [d/dp, d/dq][F, G, G^T]
	for n, k := range [2]int{kU, kV} {
		i, j := kindIJ[k][0], kindIJ[k][1]
		f := falling(a, i) * falling(1-a, j)
		h := falling(1-a, i) * falling(a, j)
		ps := pr.pieces(t, k, func(*point, int) float64 { return math.Inf(-1) }, [2]float64{})
		d[n] = [3]float64{f * (ps[0].v - ps[1].v), f * (ps[2].v - ps[3].v), h * (ps[4].v - ps[5].v)}
	}
	return d[0][0], d[1][0], d[0][1], d[1][1], d[0][2], d[1][2]
}

// upper turns a proved sup of psi into a bound on Post in nats, rounded up:
// F <= U (sup + k1 E'/E + k2 E'/E) where E'/E <= e^(4 ulps of log E)
// covers the rounding of log E.
func (pr *problem) upper(sup float64) float64 {
	if math.IsInf(sup, 1) || math.IsNaN(sup) {
		return math.Inf(1)
	}
	w := math.Exp(combineUlps * eps64 * (math.Abs(pr.logE) + 1))
	s := sup + (pr.k1+pr.k2)*w
	s += combineUlps * eps64 * (math.Abs(sup) + (pr.k1+pr.k2)*w)
	if !(s > 0) {
		return math.Inf(1)
	}
	ls := math.Log(s)
	u := (pr.logU + ls) / (pr.alpha - 1)
	return floatbits.Up(u, 4) + combineUlps*eps64*(math.Abs(pr.logU)+math.Abs(ls)+1)/(pr.alpha-1)
}

// box is a rectangle of logits [s1, s2] x [t1, t2] (p = 1/(1+e^-s)); ends
// may be infinite. ub bounds psi on it from above.
type box struct {
	s1, s2, t1, t2 float64
	ub             float64
	cs, ct         float64 // how much each side's width costs in the bound (for the split)
	depth, seq     int
	alongS, stall  bool         // split from its parent along s; its bound fell by less than stallDrop of the parent's excess
	pts            []*point     // corners as evaluated (p1,q2), (p2,q1), (p1,q1), (p2,q2), kept for the children
	third          *[4]interval // a band box's third derivatives' ranges over it, for its children (diagTaylor)
}

// stallDrop: a child whose bound fell by less than this share of its
// parent's excess over the target is split along the other side next.
const stallDrop = 0.1

// cacheMax caps the evaluations kept by their logits (problem.cache) for
// other boxes that meet there: a box's corners for its children, its
// Taylor center (evaluated with every kind) for its grandchildren, whose
// corner it is after a split across each side, and any corner shared by
// neighbours bounded close in time. About 1.1 to 2.1 kB an evaluation;
// each is counted among those MemoryBytes allows a box.
const cacheMax = 16384

// keepCorners caps the open boxes that keep their corner evaluations for
// their children (memory: about 1.1 to 2.1 kB a corner).
const keepCorners = 50_000

// MemoryBytes is an estimate from above of the memory a search of at most
// boxes boxes holds: 9 KiB for each of the first keepCorners (their four
// corner evaluations, about 1.1 kB each and up to 1 kB more that a corner
// keeps for the boxes meeting there: point.thirds, point.vt) and 256 bytes
// for every box. The evaluations kept by their logits (at most cacheMax,
// about 35 MB) are among those: a search makes 1 to 3 evaluations a box
// (Result.Evals). Measured (peak resident set): 379 MB at 400,000 boxes
// ((15, 0.1, 50, 0.1) with Tol 1e-14, which never closes; 284 MB before
// corners kept pieces and terms), 8.5 MB at 682,268 boxes that closed as
// they went. Windowed sums add their coordinates' logs (coordLogs: at
// most 32 MiB kept, and as much again in ranges being replaced), counted
// at every box count: at (10^6, 0.499, 1.001, 1e-3) the peak went from 54
// to 108 MB.
func MemoryBytes(boxes int) int64 {
	b := int64(max(boxes, 0))
	return min(b, keepCorners)*9<<10 + b*256 + 2*coordLogsMax*8
}

type boxHeap []*box

func (h boxHeap) Len() int { return len(h) }
func (h boxHeap) Less(i, j int) bool {
	if h[i].ub != h[j].ub {
		return h[i].ub > h[j].ub
	}
	return h[i].seq < h[j].seq
}
func (h boxHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *boxHeap) Push(x any)   { *h = append(*h, x.(*box)) }
func (h *boxHeap) Pop() any {
	old := *h
	b := old[len(old)-1]
	*h = old[:len(old)-1]
	return b
}

type outcome struct {
	sup      float64 // proved upper bound on psi over the square
	closed   bool    // every box closed below the target
	violated bool
	vp, vq   float64
	boxes    int
	tiles    []Tile // when problem.tiling: boxes tiling the half square, psi <= sup on each
	band     *Band  // when problem.tiling: the proved band (nil for none), tiles inside it closed by it
}

// search proves psi <= l0 + tau on the half square p <= 1/2 (psi is
// invariant under (p, q) -> (1-p, 1-q)). Boxes are bounded largest first;
// when a point above the target is found the target is dropped and the
// search tightens the proved maximum of psi instead, until its gap to the
// best point is below tau or the budget ends.
func (pr *problem) search(ctx context.Context, maxBoxes int) outcome {
	target := pr.l0 + pr.tau
	out := outcome{}
	best := math.Inf(-1) // largest psi at a point
	h := &boxHeap{}
	seq := 0
	push := func(b *box) {
		b.seq = seq
		seq++
		heap.Push(h, b)
	}
	root := &box{s1: math.Inf(-1), s2: 0, t1: math.Inf(-1), t2: math.Inf(1), ub: math.Inf(1)}
	push(root)
	bd := pr.diagonal(ctx, maxBoxes) // nil or a proved band (diagonal.go)
	maxBoxes -= bd.count()           // counted in out.boxes at the end
	stuck := math.Inf(-1)            // bounds of boxes too thin to split
	for h.Len() > 0 {
		top := (*h)[0]
		if !out.violated && top.ub <= target {
			break
		}
		if out.violated && top.ub-best <= pr.tau {
			break
		}
		if out.boxes >= maxBoxes || (out.boxes%64 == 0 && ctx.Err() != nil) {
			break
		}
		heap.Pop(h)
		if pr.cache == nil || len(pr.cache) >= cacheMax {
			pr.cache = map[[2]float64]*point{}
		}
		for _, p := range top.pts {
			if p != nil {
				pr.cache[p.at] = p
			}
		}
		kids, ok := split(top)
		if !ok {
			stuck = math.Max(stuck, top.ub)
			if pr.tiling {
				out.tiles = append(out.tiles, Tile{top.s1, top.s2, top.t1, top.t2})
			}
			continue
		}
		for _, b := range kids {
			if bd.contains(b) {
				out.boxes++
				if pr.tiling {
					out.tiles = append(out.tiles, Tile{b.s1, b.s2, b.t1, b.t2})
				}
				continue // inside the proved band
			}
			val := pr.bound(b)
			out.boxes++
			b.stall = !math.IsInf(top.ub, 1) && top.ub-b.ub < stallDrop*(top.ub-target)
			if val > best {
				best = val
				if val > target && !out.violated {
					out.violated = true
					out.vp, out.vq = fromLogit(mid(b.s1, b.s2)).value(), fromLogit(mid(b.t1, b.t2)).value()
				}
			}
			if b.ub > target || out.violated {
				if h.Len() >= keepCorners {
					b.pts = nil
				}
				push(b)
			} else {
				b.pts = nil
				if pr.tiling {
					out.tiles = append(out.tiles, Tile{b.s1, b.s2, b.t1, b.t2})
				}
			}
		}
	}
	if pr.tiling {
		out.band = bd.export()
		// The boxes still open: each ub <= sup (the heap's top is the
		// largest). With the closed and the stuck boxes they tile the half
		// square, on which psi <= sup is then proved.
		for _, b := range *h {
			out.tiles = append(out.tiles, Tile{b.s1, b.s2, b.t1, b.t2})
		}
	}
	out.sup = math.Max(target, stuck)
	if h.Len() > 0 {
		out.sup = math.Max(out.sup, (*h)[0].ub)
	}
	out.closed = h.Len() == 0 || (!out.violated && (*h)[0].ub <= target)
	out.closed = out.closed && math.IsInf(stuck, -1)
	out.boxes += bd.count()
	return out
}

// mid returns the split point of a logit interval: the midpoint of a finite
// one; for a half-infinite one a step of max(1, |end|) beyond its finite
// end, so that depth reaches logits of any size in logarithmically many
// splits.
func mid(lo, hi float64) float64 {
	switch {
	case math.IsInf(lo, -1) && math.IsInf(hi, 1):
		return 0
	case math.IsInf(lo, -1):
		return hi - math.Max(1, math.Abs(hi))
	case math.IsInf(hi, 1):
		return lo + math.Max(1, math.Abs(lo))
	}
	return lo + (hi-lo)/2
}

// split halves b across the side that costs more: an infinite side first,
// then the side whose width adds more to the box's bound.
func split(b *box) ([2]*box, bool) {
	infS := math.IsInf(b.s1, 0) || math.IsInf(b.s2, 0)
	infT := math.IsInf(b.t1, 0) || math.IsInf(b.t2, 0)
	ws, wt := b.s2-b.s1, b.t2-b.t1
	var alongS bool
	switch {
	case infS && infT:
		// Both sides reach an edge: split the doubly infinite t first, then alternate.
		alongS = !(math.IsInf(b.t1, -1) && math.IsInf(b.t2, 1)) && b.depth%2 == 0
	case infS:
		alongS = true
	case infT:
		alongS = false
	case b.stall && b.depth > 0:
		// The last split, along the other side, did not lower the bound:
		// the excess lies along this one, whatever the shares say.
		alongS = !b.alongS
	case b.cs > 0 || b.ct > 0:
		alongS = b.cs >= b.ct
	default:
		alongS = ws >= wt
	}
	thin := func(lo, hi float64) bool {
		m := mid(lo, hi)
		return !(m > lo && m < hi) || hi-lo <= 1e-13*math.Max(1, math.Abs(m))
	}
	if alongS && thin(b.s1, b.s2) {
		alongS = false
	}
	if !alongS && thin(b.t1, b.t2) {
		if thin(b.s1, b.s2) {
			return [2]*box{}, false
		}
		alongS = true
	}
	x, y := *b, *b
	if alongS {
		m := mid(b.s1, b.s2)
		x.s2, y.s1 = m, m
	} else {
		m := mid(b.t1, b.t2)
		x.t2, y.t1 = m, m
	}
	x.cs, x.ct, y.cs, y.ct = 0, 0, 0, 0
	x.depth, y.depth = b.depth+1, b.depth+1
	x.alongS, y.alongS = alongS, alongS
	x.stall, y.stall = false, false
	x.pts, y.pts = nil, nil
	return [2]*box{&x, &y}, true
}

// bound sets b.ub, an upper bound on psi over b, and returns a lower bound
// on psi at b's center (-Inf where none was computed).
//
// Two enclosures, the smaller kept:
//   - monotone (any box): g(u, v) increases in u and decreases in v, and
//     each term's u and v are monotone in p and q, so F's halves are largest
//     and G's smallest at opposite corners (p2, q1) and (p1, q2);
//   - mean value (finite boxes): psi(x) = psi(m) + grad psi(xi) . (x - m),
//     where each partial derivative of F, G and G^T is increasing in its own
//     variable and decreasing in the other (convex, with a nonpositive mixed
//     derivative: g_uv < 0), so its range over the box is its values at the
//     same two corners.
func (pr *problem) bound(b *box) float64 {
	v := pr.enclose(b)
	if math.IsNaN(b.ub) {
		b.ub = math.Inf(1) // never close a box on a NaN
	}
	if math.IsNaN(v) {
		return math.Inf(-1)
	}
	return v
}

func (pr *problem) enclose(b *box) float64 {
	// Data processing first: it costs no evaluation.
	if !noProcessed {
		if u := pr.processed(b); u <= pr.l0+pr.tau {
			b.ub = u
			return math.Inf(-1)
		}
	}
	finite := !math.IsInf(b.s1, 0) && !math.IsInf(b.s2, 0) && !math.IsInf(b.t1, 0) && !math.IsInf(b.t2, 0)
	order := 0
	ncorner := 2
	if finite {
		order = maxOrder
		// Windowed sums form every kind for little more than the value
		// (addShared): the corners then serve the curvature bound and the
		// children's Taylor centers as they are (10 to 20% fewer
		// evaluations at n = 10^4 and 10^6).
		if pr.m.windowed() {
			order = orderAll
		}
		ncorner = 4
	}
	at := [4][2]float64{{b.s1, b.t2}, {b.s2, b.t1}, {b.s1, b.t1}, {b.s2, b.t2}}
	// Sums are windowed; each corner bounds its own omitted terms (see
	// cornerTail).
	pts := make([]*point, ncorner)
	for i := range pts {
		pts[i] = pr.evalAt(at[i][0], at[i][1], order)
	}
	b.pts = pts
	// The corners hold the box's ends as evalAt formed them from the logits.
	p1, q2, p2, q1 := pts[0].p, pts[0].q, pts[1].p, pts[1].q
	b.ub = math.Min(pr.monotone(pts, cornerTail(pts, kVal)), pr.paired(pts))
	if b.ub > pr.l0+pr.tau && !noSplit && pr.trySplit(b, pts) {
		b.ub = math.Min(b.ub, pr.splitPaired(pts))
	}
	// A box already closed needs no Taylor form: it is not split, and its
	// center cannot be above the target.
	if !finite || b.ub <= pr.l0+pr.tau {
		return math.Inf(-1)
	}
	// Near an edge, where the Taylor form in both variables fails or is
	// poor (p^(alpha-3) dwarfs the box's own variation), expand in one
	// variable only and take the other's range from monotone bounds.
	// Inside, and from alpha = partialBelow on, it rarely pays for its two
	// evaluations. Tried before the Taylor form, it spares the boxes it
	// closes their center's evaluation (at (10^4, 0.4999, 1.001, 1e-3)
	// the centers were 2,006 of 4,405 evaluations).
	edge := math.Max(math.Max(-b.s1, b.s2), math.Max(-b.t1, b.t2)) > edgeLogit
	if edge && pr.alpha < partialBelow {
		if pr.partials(b, pts); b.ub <= pr.l0+pr.tau {
			return math.Inf(-1)
		}
	}

	// Taylor form of order 3 around the logit center m: the polynomial of
	// degree 2 at m (exact, cancellations included), and the remainder
	// sum_{i+j=3} D^(i,j) psi(xi) d_p^i d_q^j / (i! j!) with each third
	// derivative bounded over the box piece by piece (each half of F, G and
	// G^T has terms monotone in p and in q, so its extremes are at corners).
	c := pr.evalAt(mid(b.s1, b.s2), mid(b.t1, b.t2), orderAll)
	mp, mq := c.p, c.q
	psi, ok := pr.value(c)
	if !ok {
		return math.Inf(-1)
	}
	dp := interval{diff(p1, mp), diff(p2, mp)}
	dq := interval{diff(q1, mq), diff(q2, mq)}
	// Where a derivative overflows (logits of hundreds), redo in units of
	// the box's extent, d = (ep x', eq y'), x', y' in [-1, 1]: each
	// derivative is then formed times ep^i eq^j in log space.
	taylorOK := false
	for _, scaled := range [2]bool{false, true} {
		up, ok := pr.taylor(psi, c, pts, dp, dq, scaled)
		if ok {
			taylorOK = true
			if !scaled {
				b.cs, b.ct = up.cs, up.ct
			}
			if up.ub < b.ub {
				b.ub = up.ub
			}
			break
		}
	}
	if !taylorOK && !edge && b.ub > pr.l0+pr.tau && pr.alpha < partialBelow {
		pr.partials(b, pts)
	}
	if b.ub > pr.l0+pr.tau && !noCurve && pr.curveNear(b) {
		if u, ok := pr.curvature(b); ok && u < b.ub {
			b.ub = u
		}
	}
	if b.cs == 0 && b.ct == 0 {
		// No Taylor shares (a derivative overflowed, as at logits of
		// thousands, where p^(alpha-3) does): split across the side along
		// which psi changes more between the corners, not the wider one
		// (near an edge a wide side can be flat).
		var v [4]float64
		for i, t := range pts {
			x, ok := pr.value(t)
			if !ok {
				return psi.v - psi.err
			}
			v[i] = x.v
		}
		b.cs = math.Abs(v[3]-v[0]) + math.Abs(v[1]-v[2])
		b.ct = math.Abs(v[2]-v[0]) + math.Abs(v[3]-v[1])
	}
	return psi.v - psi.err
}

// evalAt returns the evaluation at the logits (s, t) with at least the
// kinds of order (orderAll: every kind), the kept one (problem.cache) when
// it has them, else a new one, kept. Every point a box evaluates (its
// corners, its Taylor center, the segments of the one-variable forms) is
// a corner of the boxes that split it: with every kind, it serves them.
func (pr *problem) evalAt(s, t float64, order int) *point {
	at := [2]float64{s, t}
	if p, ok := pr.cache[at]; ok {
		switch {
		case order == 0, order == maxOrder && p.kinds == nKinds:
			return p
		case !p.corner && p.kinds >= kindsUpTo[min(order, maxOrder)]:
			return p
		}
	}
	p := pr.m.eval(fromLogit(s), fromLogit(t), order, true)
	p.at = at
	pr.evals++
	if pr.cache != nil {
		pr.cache[at] = p
	}
	return p
}

// Test knobs: noSplit turns splitPaired off (before/after); with
// testSplitWrongCorner it bounds the unpaired terms at the pairing corner,
// a deliberately wrong bound that TestSplitPairedValid must catch.
var noSplit, testSplitWrongCorner = false, false

type taylorBound struct{ ub, cs, ct float64 }

// partialBelow is the alpha from which the one-variable forms are not
// tried: they are for the edges at alpha near 1, where p^(alpha-3) makes
// the p-derivatives useless. Measured: at alpha 50 they closed no box of
// the paper's grids (582,850 boxes with and without them), nor any of
// 9,079 and 11,582 tries at (3342, 0.4572, 377.35, 0.00327) and (397,
// 0.3862, 936.4, 0.0011), a quarter of the CPU there.
const partialBelow = 10

// edgeLogit is the logit beyond which a box counts as near an edge (p or q
// within about 5e-5 of 0 or 1).
const edgeLogit = 10

// partials lowers b.ub by the one-variable forms (partial), the one along
// the side nearer 0 first (axis 1, in q, where s reaches farther): the
// other closes almost no box that it leaves, so it is skipped once the
// first closes.
func (pr *problem) partials(b *box, pts []*point) {
	axes := [2]int{0, 1}
	if math.Max(-b.s1, b.s2) > math.Max(-b.t1, b.t2) {
		axes = [2]int{1, 0}
	}
	for _, axis := range axes {
		if u, ok := pr.partial(b, pts, axis); ok && u < b.ub {
			b.ub = u
		}
		if b.ub <= pr.l0+pr.tau {
			return
		}
	}
}

// partial bounds psi over a finite box by a Taylor form in one variable
// (axis 1: q, around the center mq; axis 0: p), the other free:
//
//	psi(p, mq + d) <= max_p psi(p, mq) + max_p psi_q(p, mq) d + max_p psi_qq(p, mq) d^2/2 + max psi_qqq d^3/6,
//
// with the first three ranges over the segment p in [p1, p2] at q = mq
// (monotone and paired bounds at its two ends) and the last over the box
// (its corners pts). It keeps second-order accuracy in q where psi hardly
// depends on p, as near the edge p = 0 at alpha near 1.
func (pr *problem) partial(b *box, pts []*point, axis int) (float64, bool) {
	var seg []*point
	var d interval
	kinds := [3]int{2, 5, 9} // (0,1), (0,2), (0,3)
	if axis == 1 {
		mq := fromLogit(mid(b.t1, b.t2))
		q1, q2 := fromLogit(b.t1), fromLogit(b.t2)
		seg = []*point{pr.evalAt(b.s1, mid(b.t1, b.t2), orderAll), pr.evalAt(b.s2, mid(b.t1, b.t2), orderAll)}
		d = interval{diff(q1, mq), diff(q2, mq)}
	} else {
		mp := fromLogit(mid(b.s1, b.s2))
		p1, p2 := fromLogit(b.s1), fromLogit(b.s2)
		seg = []*point{pr.evalAt(mid(b.s1, b.s2), b.t2, orderAll), pr.evalAt(mid(b.s1, b.s2), b.t1, orderAll)}
		d = interval{diff(p1, mp), diff(p2, mp)}
		kinds = [3]int{1, 3, 6} // (1,0), (2,0), (3,0)
	}
	a0 := math.Min(pr.monotone(seg, cornerTail(seg, kVal)), pr.paired(seg))
	r1, ok1 := pr.derivRange(seg, kinds[0], [2]float64{})
	r2, ok2 := pr.derivRange(seg, kinds[1], [2]float64{})
	r3, ok3 := pr.derivRange(pts, kinds[2], [2]float64{})
	if !(ok1 && ok2 && ok3) || !finiteAll(a0) {
		return 0, false
	}
	quad := math.Max(quadMax(r1.hi, 0, r2.hi, 0, d.hi), quadMax(r1.lo, 0, r2.hi, d.lo, 0))
	cube := math.Max(math.Max(r3.hi, 0)*d.hi*d.hi*d.hi, math.Max(-r3.lo, 0)*-d.lo*d.lo*d.lo) / 6
	ub := a0 + quad + cube
	ub += termUlps * eps64 * (math.Abs(a0) + math.Abs(quad) + cube)
	return ub, finiteAll(ub)
}

// taylor returns the order-3 Taylor bound of psi over the box (corners pts,
// center c, offsets dp, dq from the center); false when a term overflows.
func (pr *problem) taylor(psi val, c *point, pts []*point, dp, dq interval, scaled bool) (taylorBound, bool) {
	ls := [2]float64{}
	dpn, dqn := dp, dq
	if scaled {
		ep, eq := math.Max(-dp.lo, dp.hi), math.Max(-dq.lo, dq.hi)
		ls = [2]float64{math.Log(ep), math.Log(eq)}
		dpn, dqn = interval{dp.lo / ep, dp.hi / ep}, interval{dq.lo / eq, dq.hi / eq}
	}
	var d [6]val // D^(i,j) psi(m), times ep^i eq^j when scaled, for degree <= 2
	for k := 1; k < 6; k++ {
		d[k] = pr.deriv(c, k, ls)
		if !finiteAll(d[k].v, d[k].err) {
			return taylorBound{}, false
		}
	}
	// The degree-2 polynomial's maximum over the rectangle, exactly (up to
	// the errors of its coefficients, added at the rectangle's extent).
	ep, eq := math.Max(-dpn.lo, dpn.hi), math.Max(-dqn.lo, dqn.hi)
	quad := quadMax2(d[1].v, d[2].v, d[3].v, d[4].v, d[5].v, dpn, dqn)
	quad += d[1].err*ep + d[2].err*eq + (d[3].err*ep*ep+d[5].err*eq*eq)/2 + d[4].err*ep*eq
	ub := psi.v + psi.err + quad
	// The split goes across the side that costs more: each term's share
	// is its degree in that side's variable.
	xp := quadMax(d[1].v, d[1].err, d[3].v+d[3].err, dpn.lo, dpn.hi)
	xq := quadMax(d[2].v, d[2].err, d[5].v+d[5].err, dqn.lo, dqn.hi)
	cs, ct := xp, xq
	for k := kindsUpTo[2]; k < kindsUpTo[3]; k++ {
		r, ok := pr.derivRange(pts, k, ls)
		if !ok {
			return taylorBound{}, false
		}
		i, j := kindIJ[k][0], kindIJ[k][1]
		x := maxProd(r, mono(dpn, dqn, i, j)) / (fact(i) * fact(j))
		ub += x
		cs += math.Max(x, 0) * float64(i) / 3
		ct += math.Max(x, 0) * float64(j) / 3
	}
	ub += termUlps * eps64 * (math.Abs(psi.v) + math.Abs(xp) + math.Abs(xq) + math.Abs(ub))
	if !finiteAll(ub) {
		return taylorBound{}, false
	}
	return taylorBound{ub, cs, ct}, true
}

func fact(i int) float64 { return [4]float64{1, 1, 2, 6}[i] }

// mono returns the range of d_p^i d_q^j over the box (dp.lo <= 0 <= dp.hi).
func mono(dp, dq interval, i, j int) interval {
	pow := func(x interval, n int) interval {
		if n == 0 {
			return interval{1, 1}
		}
		lo, hi := math.Pow(x.lo, float64(n)), math.Pow(x.hi, float64(n))
		if n%2 == 0 {
			return interval{0, math.Max(lo, hi)}
		}
		return interval{lo, hi}
	}
	a, b := pow(dp, i), pow(dq, j)
	ps := [4]float64{a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi}
	r := interval{ps[0], ps[0]}
	for _, p := range ps[1:] {
		r.lo, r.hi = math.Min(r.lo, p), math.Max(r.hi, p)
	}
	return r
}

// maxProd returns the largest x y for x in a, y in b.
func maxProd(a, b interval) float64 {
	return math.Max(math.Max(a.lo*b.lo, a.lo*b.hi), math.Max(a.hi*b.lo, a.hi*b.hi))
}

// falling returns the falling factorial x (x-1) ... (x-i+1).
func falling(x float64, i int) float64 {
	r := 1.0
	for n := range i {
		r *= x - float64(n)
	}
	return r
}

// coefs returns the coefficients of the (i, j)-th partial derivative of psi
// on the six halves' sums (F's two halves, G's, G^T's): each half's
// derivative is (a)_i (1-a)_j (+-1)^(i+j) times its sum, with u and v
// swapped for G^T; psi weighs F/U by 1, G/E by -k1 and G^T/E by -k2.
func (pr *problem) coefs(k int) [6]float64 {
	a := pr.alpha
	i, j := kindIJ[k][0], kindIJ[k][1]
	s := 1.0
	if (i+j)%2 == 1 {
		s = -1
	}
	f := falling(a, i) * falling(1-a, j)
	h := falling(1-a, i) * falling(a, j)
	return [6]float64{f, s * f, -pr.k1 * f, -pr.k1 * s * f, -pr.k2 * h, -pr.k2 * s * h}
}

// pieces returns the six halves' sums of kind k at t (F's scaled by 1/U
// with their tails at t, G's and G^T's by 1/E).
//
// Every value is multiplied by e^(i ls[0] + j ls[1]) (the box's extent
// to the kind's powers), formed in log space; fTail returns the log of the
// bound on the omitted terms of F's half h.
func (pr *problem) pieces(t *point, k int, fTail func(t *point, h int) float64, ls [2]float64) [6]val {
	if !t.has(k) {
		panic(fmt.Sprintf("certify: kind %v not summed at this point", kindIJ[k]))
	}
	i, j := float64(kindIJ[k][0]), float64(kindIJ[k][1])
	sc := i*ls[0] + j*ls[1]
	var r [6]val
	for h := range 2 {
		v, e := t.f[h][k].scaled(pr.logU - sc)
		r[h] = val{v, e + math.Exp(fTail(t, h)-pr.logU+sc)}
	}
	p, q := t.p, t.q
	r[2] = pr.gterm(t.lg1, i*p.l+j*q.l-sc)
	r[3] = pr.gterm(t.lg2, i*p.l1+j*q.l1-sc)
	r[4] = pr.gterm(t.lh1, i*p.l+j*q.l-sc)
	r[5] = pr.gterm(t.lh2, i*p.l1+j*q.l1-sc)
	return r
}

// deriv returns D^(i,j) psi at t for kind k = (i, j) (t evaluated to
// that degree) times e^(i ls[0] + j ls[1]), with its error.
func (pr *problem) deriv(t *point, k int, ls [2]float64) val {
	co := pr.coefs(k)
	ps := pr.pieces(t, k, ownTail(k), ls)
	var v, e, m float64
	for n, x := range ps {
		v += co[n] * x.v
		e += math.Abs(co[n]) * x.err
		m += math.Abs(co[n] * x.v)
	}
	return val{v, e + combineUlps*eps64*m}
}

// derivRange bounds D^(i,j) psi e^(i ls[0] + j ls[1]) over the box whose
// corners pts holds, for kind k = (i, j): each half's sum at its extremes
// over the corners, each with its own omitted terms (cornerTail).
func (pr *problem) derivRange(pts []*point, k int, ls [2]float64) (interval, bool) {
	co := pr.coefs(k)
	var r interval
	ext := [6]interval{}
	for n := range ext {
		ext[n] = interval{math.Inf(1), math.Inf(-1)}
	}
	// rho[h] is the range of the ratio of F's half h to G's half h (both
	// pieces of kind k), for the paired range below.
	rho := [2]interval{{math.Inf(1), math.Inf(-1)}, {math.Inf(1), math.Inf(-1)}}
	for _, t := range pts {
		var ps [6]val
		if k >= kPPP && ls == ([2]float64{}) && !testNoThirds {
			ps = *pr.cornerPieces(t, k)
		} else {
			ps = pr.pieces(t, k, ownTail(k), ls)
		}
		for n, x := range ps {
			ext[n].lo = math.Min(ext[n].lo, x.lo())
			ext[n].hi = math.Max(ext[n].hi, x.hi())
		}
		for h := range 2 {
			f, g := ps[h], ps[2+h]
			rho[h].lo = math.Min(rho[h].lo, f.lo()/g.hi())
			rho[h].hi = math.Max(rho[h].hi, f.hi()/g.lo())
		}
	}
	for n, x := range ext {
		if n == 2 || n == 3 {
			continue // paired with F's halves
		}
		if n < 2 {
			sep := scaleIv(co[n], x).add(scaleIv(co[n+2], ext[n+2]))
			// Paired: F_h - k1 G_h = G_h (F_h/G_h - k1), where the ratio
			// F_h/G_h is monotone in p and in q (each of its terms is a
			// power of u/p times a power of v/q; half 1 likewise), so its
			// range is spanned by the corners. Where F and G nearly cancel,
			// this range is far narrower than the two pieces' apart.
			if rho[n].lo > 0 && !math.IsInf(rho[n].hi, 1) {
				b := interval{rho[n].lo - pr.k1, rho[n].hi - pr.k1}
				m := combineUlps * eps64 * (rho[n].hi + pr.k1)
				b = interval{b.lo - m, b.hi + m}
				pair := scaleIv(co[n], mulIv(ext[n+2], b))
				if pair.hi-pair.lo < sep.hi-sep.lo {
					sep = pair
				}
			}
			r = r.add(sep)
			continue
		}
		r = r.add(scaleIv(co[n], x))
	}
	m := combineUlps * eps64 * (math.Abs(r.lo) + math.Abs(r.hi))
	r = interval{r.lo - m, r.hi + m}
	return r, finiteAll(r.lo, r.hi)
}

// cornerPieces returns pieces(t, k) unscaled with t's own tails, for a
// kind k of degree 3, formed once per point (point.thirds).
func (pr *problem) cornerPieces(t *point, k int) *[6]val {
	if t.thirds == nil {
		t.thirds = &cornerThirds{}
	}
	i := k - kPPP
	if t.thirds.have&(1<<i) == 0 {
		t.thirds.v[i] = pr.pieces(t, k, ownTail(k), [2]float64{})
		t.thirds.have |= 1 << i
	}
	return &t.thirds.v[i]
}

// ownTail returns the tail of kind k each point bounds for itself.
func ownTail(k int) func(t *point, h int) float64 {
	return func(t *point, h int) float64 { return t.logTail[h][k] }
}

// testNoThirds turns point.thirds off (before/after; the ranges are the
// same bit for bit).
var testNoThirds = false

// scaleIv returns c x.
func scaleIv(c float64, x interval) interval {
	lo, hi := c*x.lo, c*x.hi
	if lo > hi {
		lo, hi = hi, lo
	}
	return interval{lo, hi}
}

// add returns x + y.
func (x interval) add(y interval) interval { return interval{x.lo + y.lo, x.hi + y.hi} }

// mulIv returns the product of two intervals.
func mulIv(x, y interval) interval {
	ps := [4]float64{x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi}
	r := interval{ps[0], ps[0]}
	for _, p := range ps[1:] {
		r.lo, r.hi = math.Min(r.lo, p), math.Max(r.hi, p)
	}
	return r
}

// quadMax2 returns the maximum of gp x + gq y + (hpp x^2 + 2 hpq x y +
// hqq y^2)/2 over the rectangle x in dp, y in dq: a quadratic's maximum on a
// rectangle is at a corner, at a critical point of its restriction to an
// edge, or at its interior critical point.
func quadMax2(gp, gq, hpp, hpq, hqq float64, dp, dq interval) float64 {
	f := func(x, y float64) float64 { return gp*x + gq*y + (hpp*x*x+2*hpq*x*y+hqq*y*y)/2 }
	m := math.Inf(-1)
	try := func(x, y float64) {
		if x >= dp.lo && x <= dp.hi && y >= dq.lo && y <= dq.hi {
			m = math.Max(m, f(x, y))
		}
	}
	for _, x := range [2]float64{dp.lo, dp.hi} {
		for _, y := range [2]float64{dq.lo, dq.hi} {
			try(x, y)
		}
		if hqq != 0 { // edge x fixed: gq + hpq x + hqq y = 0
			try(x, -(gq+hpq*x)/hqq)
		}
	}
	for _, y := range [2]float64{dq.lo, dq.hi} {
		if hpp != 0 {
			try(-(gp+hpq*y)/hpp, y)
		}
	}
	if det := hpp*hqq - hpq*hpq; det != 0 {
		try((-gp*hqq+gq*hpq)/det, (-gq*hpp+gp*hpq)/det)
	}
	// Rounding of the evaluations: a few ulps of the terms' sizes.
	ep, eq := math.Max(-dp.lo, dp.hi), math.Max(-dq.lo, dq.hi)
	return m + termUlps*eps64*(math.Abs(gp)*ep+math.Abs(gq)*eq+(math.Abs(hpp)*ep*ep+2*math.Abs(hpq)*ep*eq+math.Abs(hqq)*eq*eq)/2)
}

// quadMax returns an upper bound of g d + h d^2 / 2 over d in [d1, d2]
// (d1 <= 0 <= d2), for any gradient in [g - ge, g + ge].
func quadMax(g, ge, h, d1, d2 float64) float64 {
	f := func(d float64) float64 { return g*d + h*d*d/2 }
	m := math.Max(f(d1), f(d2))
	if h < 0 {
		if d := -g / h; d > d1 && d < d2 {
			m = math.Max(m, f(d))
		}
	}
	return m + ge*math.Max(-d1, d2)
}

// val is a computed number and a bound on its absolute error.
type val struct{ v, err float64 }

func (x val) hi() float64 { return x.v + x.err }
func (x val) lo() float64 { return x.v - x.err }

// fsum returns kind k of F's half h at t, scaled by 1/U.
func (pr *problem) fsum(t *point, h, k int) val {
	if !t.has(k) {
		panic(fmt.Sprintf("certify: kind %v not summed at this point", kindIJ[k]))
	}
	v, e := t.f[h][k].scaled(pr.logU)
	return val{v, e + math.Exp(t.logTail[h][k]-pr.logU)}
}

// gterm returns g e^(-l) / E for a half of G or G^T with log value lg,
// where l is a sum of logs of p, 1-p, q, 1-q.
func (pr *problem) gterm(lg, l float64) val {
	if math.IsInf(lg, -1) {
		return val{}
	}
	v := math.Exp(lg - l - pr.logE)
	return val{v, v * termUlps * eps64 * (pr.alpha*(math.Abs(lg)+math.Abs(l)) + math.Abs(pr.logE) + 8)}
}

// monotone bounds psi over a box from above by the monotone enclosure:
// g(u, v) increases in u and decreases in v, so each half of F is largest,
// and each half of G and G^T smallest, at a corner; pts holds the corners
// (at least (p1, q2) and (p2, q1), where those extremes are); tail[h]
// bounds the omitted terms of F's half h at every corner (cornerTail).
func (pr *problem) monotone(pts []*point, tail [2]float64) float64 {
	fu := newSum()
	for h := range 2 {
		best, lBest := newSum(), math.Inf(-1)
		for _, t := range pts {
			if s := t.f[h][kVal]; s.log() > lBest {
				best, lBest = s, s.log()
			}
		}
		fu.add(lBest, best.relErr())
		if !math.IsInf(tail[h], -1) {
			fu.add(tail[h], 0) // the half's omitted terms
		}
	}
	fU, fErr := fu.scaled(pr.logU)
	lY := math.Inf(-1)
	yErr := 0.0 // each term's value times its own relative error
	for i, k := range [2]float64{pr.k1, pr.k1} {
		if i == 1 {
			k = pr.k2
		}
		if k <= 0 {
			continue
		}
		for h := range 2 {
			lo, rel := math.Inf(1), 0.0
			for _, t := range pts {
				if x := t.ghalf(2*i + h); x[2] < lo {
					lo = x[2]
				}
				rel = math.Max(rel, t.grel[2*i+h])
			}
			lt := math.Log(k) + lo - pr.logE
			lY = logspace.Add(lY, lt)
			if lt < 700 {
				yErr += math.Exp(lt) * rel
			}
		}
	}
	lX := fu.log() - pr.logU
	switch {
	case lX < 700 && lY < 700:
		y := math.Exp(lY)
		y -= yErr + y*combineUlps*eps64*(math.Abs(lY)+math.Abs(pr.logE)+1)
		return fU + fErr - y + combineUlps*eps64*(fU+y)
	case lY > lX+1e-6:
		return math.Inf(-1) // G or G^T dwarfs F: e^lY (1 - e^-1e-6) is astronomically large
	}
	return math.Inf(1)
}

// processed bounds psi over a box from above by data processing, with no
// evaluation of F_n: F_n(p, q) is the Renyi moment of order alpha of the
// laws of the n coins drawn through one channel from Bern(p) and from
// Bern(q), so F_n <= G for alpha > 1, and
//
//	psi <= A G - k2 G^T/E,  A = 1/U - k1/E,
//
// with each half of G at its largest over the box (g(p, q) at (p2, q1),
// g(1-p, 1-q) at (p1, q2)) where A > 0, and each half of G^T at its least
// (g(q, p) at (p2, q1), g(1-q, 1-p) at (p1, q2)). It is exact on the
// diagonal (F_n = G = G^T = 1). Where Post is barely below eps (k1 = 1, U
// just below E), A is tiny and the bound closes, in a few boxes, the wide
// regions where the coins tell p from q (F_n near G) and psi lies within
// A G of the target, which the evaluated bounds close only in small boxes
// (docs/certificates.md, "Data processing").
func (pr *problem) processed(b *box) float64 {
	c := pr.processedConsts()
	p1, p2, q1, q2 := fromLogit(b.s1), fromLogit(b.s2), fromLogit(b.t1), fromLogit(b.t2)
	a := pr.alpha
	var ag float64 // an upper bound of A G (0 where A <= 0)
	if c.pos {
		gHi := [2][2]float64{{p2.l, q1.l}, {p1.l1, q2.l1}}
		if testProcessedLeast {
			gHi = [2][2]float64{{p1.l, q2.l}, {p2.l1, q1.l1}}
		}
		for _, x := range gHi {
			lt := c.lA + logG(x[0], x[1], a)
			if math.IsInf(lt, -1) {
				continue // this half of G is 0
			}
			if !(lt < 700) {
				return math.Inf(1) // G unbounded, or NaN
			}
			ag += math.Exp(lt) * (1 + gRel(x[0], x[1], a) + 2*c.lAe + termUlps*eps64*(math.Abs(lt)+1))
		}
	}
	var h float64 // a lower bound of k2 G^T/E
	if pr.k2 > 0 {
		for _, x := range [2][2]float64{{q1.l, p2.l}, {q2.l1, p1.l1}} {
			lt := c.lk2E + logG(x[0], x[1], a)
			if !(lt < 700) {
				continue // NaN or too large to form: 0 is a lower bound
			}
			e := gRel(x[0], x[1], a) + termUlps*eps64*(c.lk2Eabs+math.Abs(lt)+8)
			h += math.Exp(lt) * math.Max(0, 1-2*e)
		}
	}
	return ag - h + combineUlps*eps64*(ag+h)
}

// procConsts are processed's constants for the multipliers at: pos says
// whether A may be positive, lA bounds log A from above with error lAe,
// and lk2E is log k2 - log E (lk2Eabs the sum of their sizes).
type procConsts struct {
	at                     [2]float64
	pos                    bool
	lA, lAe, lk2E, lk2Eabs float64
}

// processedConsts returns processed's constants for the multipliers as
// they are (fault and relax change them).
func (pr *problem) processedConsts() *procConsts {
	c := &pr.proc
	if at := [2]float64{pr.k1, pr.k2}; c.at == at && at != [2]float64{} {
		return c
	}
	*c = procConsts{at: [2]float64{pr.k1, pr.k2}}
	// A = (1 - r)/U with r = k1 U/E.
	lk1 := math.Log(pr.k1)
	lr := lk1 + pr.logU - pr.logE
	lre := termUlps * eps64 * (math.Abs(lk1) + math.Abs(pr.logU) + math.Abs(pr.logE) + 8)
	if r := math.Exp(lr-lre) * (1 - expUlps*eps64); r < 1 || math.IsInf(lk1, -1) {
		l1r := math.Log1p(-r)
		c.pos = true
		c.lA = l1r - pr.logU
		c.lAe = combineUlps * eps64 * (math.Abs(l1r) + math.Abs(pr.logU) + 1)
	}
	lk2 := math.Log(pr.k2)
	c.lk2E, c.lk2Eabs = lk2-pr.logE, math.Abs(lk2)+math.Abs(pr.logE)
	return c
}

// noProcessed turns the data-processing bound off (before/after);
// testProcessedLeast takes G at its least over the box instead of its
// largest (a deliberately wrong bound, which TestProcessedAbovePsi must
// catch).
var noProcessed, testProcessedLeast bool

// tiny covers terms that underflow to subnormals or zero.
const tiny = 0x1p-1000

// paired bounds psi over a box from above by pairing each half of F with
// the same half of G. Half 0 is g(p, q) B(p, q) - k2 g(q, p)/E with
//
//	B = R/U - k1/E,  R = sum_j w_j (u_j/p)^alpha (v_j/q)^(1-alpha),
//
// u_j = p + (1-p) e_j, v_j = q + (1-q) e_j. Since u_j/p = 1 + (1/p - 1) e_j
// decreases in p (and v_j/q in q), R decreases in p and increases in q:
// B is largest at (p1, q2), where g(p, q) is smallest. Where that largest
// B is <= 0, g B is largest at (p1, q2) too (both factors move it up
// towards that corner), so the half of F - k1 G is bounded by its value
// there; otherwise by B(p1, q2) g(p2, q1). Half 1 is the mirror image,
// with the corners exchanged. The G^T halves take their smallest values.
// Where F and G nearly cancel (small c: the coins barely blur the
// corners) this is far tighter than the monotone enclosure, which takes F
// and G at opposite corners. pts[0] is (p1, q2), pts[1] is (p2, q1); the
// bound needs F only at its own corner, whose omitted terms that corner
// bounds (logTail).
func (pr *problem) paired(pts []*point) float64 {
	// Terms as signed logs: pos bounds the positive part from above, neg
	// the magnitude of the negative part from below. Each log carries its
	// own error: a half's log g that of logG (gRel: its inputs' errors times
	// alpha and |1-alpha|, and logG's own terms), a sum's its relErr, and
	// every further addition of logs a few ulps of the magnitudes added.
	// Where log g and log E are thousands (q within e^-48 of 1 at alpha
	// 138), padding every magnitude by alpha instead was a relative error
	// of 1e-9, larger than F - k1 G itself there.
	pos, neg := newSum(), newSum()
	for h, c := range [2][2]*point{{pts[0], pts[1]}, {pts[1], pts[0]}} {
		at, other := c[0], c[1]
		f := at.f[h][kVal]
		if !finiteAll(f.log(), at.ghalf(h)[2], other.ghalf(h)[2]) {
			return math.Inf(1)
		}
		if l, isNeg := pr.pairHalf(at.halfSum(h), pr.pairG(at, other, h)); isNeg {
			neg.add(l, 0)
		} else {
			pos.add(l, 0)
		}
	}
	for h := range 2 {
		if l := pr.gtMin(pts, h); !math.IsInf(l, -1) {
			neg.add(l, 0)
		}
	}
	lp, ln := pos.log(), neg.log()
	switch {
	case math.IsNaN(lp) || math.IsNaN(ln):
		return math.Inf(1)
	case math.Max(lp, ln) < 700:
		x, y := math.Exp(lp), math.Exp(ln)
		return x - y + combineUlps*eps64*(x+y) + tiny
	case ln > lp+1e-6:
		return math.Inf(-1) // the negative part is astronomically larger
	}
	return math.Inf(1)
}

// splitPaired bounds psi over a box from above like paired, but pairs
// with G's half only F's terms j < m (e_j small next to the half's
// argument: the term is nearly G's piece, its ratio to it nearly
// constant) and bounds the terms j >= m (e_j comparable to the argument
// or larger: nearly constants, whose ratio to G's piece is huge) by their
// largest value over the box, at the other corner, where g(u, v) is
// largest (monotone), for the best m of each half. m = 0 is the monotone
// bound of the half and m past the last term paired's.
//
// Near the diagonal at large alpha, G's pieces vary by e^(alpha w) over a
// box of width w while psi varies little: there paired takes the terms
// with e_j about p, whose ratio to g(p, q) moves by as much, at the
// wrong corners, and monotone takes g(p, q) at both.
// F's omitted terms (windowed sums) go only where their j are: each
// side's bound (valTail) into the part that holds it; above the other
// corner's window the rest is summed from m (restAt), below the pairing
// corner's the paired part is bounded from m (restBelow).
func (pr *problem) splitPaired(pts []*point) float64 {
	m := pr.m
	var best [2]float64
	for h, c := range [2][2]*point{{pts[0], pts[1]}, {pts[1], pts[0]}} {
		at, other := c[0], c[1]
		if !finiteAll(at.ghalf(h)[2], other.ghalf(h)[2]) {
			return math.Inf(1)
		}
		gp := pr.pairG(at, other, h)
		// Where every term paired leaves B <= 0, adding a term only
		// lowered the bound: the half is paired's, with no work per term.
		if fx := at.halfSum(h); !testSplitWrongCorner && finiteAll(fx.log()) {
			if l, isNeg := pr.pairHalf(fx, gp); isNeg && l < 700 {
				best[h] = -math.Exp(l)
				continue
			}
		}
		if testSplitWrongCorner {
			other = at // the rest's largest value taken at the wrong corner
		}
		xyAt, xyOther := halfArgs(at, h), halfArgs(other, h)
		lo, hi := min(at.win[h][0], other.win[h][0]), max(at.win[h][1], other.win[h][1])
		// Where even the most G-like term has e_j (1-x)/x >= e^3 (x the
		// half's argument at the pairing corner), no term is near G's
		// piece (u/x >= 21): the half is taken at m = 0, from the
		// evaluations' sums, with no work per term (as at n = 10^4 near c
		// = 1/2, half 0 at every p <= 1/2).
		// Where the window's terms have nearly one e_j (spread below
		// splitSpreadMin in log e_j, as at n = 10^4 and c = 0.4999), a
		// split among them gains little: only the ends are taken.
		zMin, zMax := math.Inf(1), math.Inf(-1)
		for j := lo; j < hi; j++ {
			zMin, zMax = math.Min(zMin, m.le[j]), math.Max(zMax, m.le[j])
		}
		constLike := zMin-(xyAt[0].l-xyAt[0].l1) >= splitConstFrom
		if (constLike || zMax-zMin < splitSpreadMin) && !testSplitWrongCorner {
			all := other.halfSum(h) // m = 0: every term at the other corner
			best[h] = pr.splitCandidate(at.tailSum(h), all.log(), all.relErr(), gp)
			if !constLike { // m past the last term: paired's half
				none := other.tailSum(h)
				best[h] = math.Min(best[h], pr.splitCandidate(at.halfSum(h), none.log(), none.relErr(), gp))
			}
			if math.IsInf(best[h], 1) {
				return best[h]
			}
			continue
		}
		// rest[j-lo]: F_h's terms j' >= j at other.
		if cap(pr.splitBuf) < hi-lo+1 {
			pr.splitBuf = make([]sum, hi-lo+1)
		}
		rest := pr.splitBuf[:hi-lo+1]
		// Each side's omitted terms go only where their j are: beyond a
		// window of the other corner, the rest is bounded from j itself
		// (restAbove), since that side's tail bounds the terms from the
		// window's end, which may dwarf those from j (at (10^4, 0.495,
		// 1000, 1), e^46316 against e^-787 of U, p and q near 0).
		ow, aw := other.win[h], at.win[h]
		acc := newSum()
		addTail := func(a *sum, l float64) {
			if !math.IsInf(l, -1) {
				a.add(l, 0)
			}
		}
		addTail(&acc, other.valTail[h][above])
		vtOther, vtAt := m.valueTerms(other, h, xyOther), m.valueTerms(at, h, xyAt)
		for j := hi; j >= lo; j-- {
			if j < hi && j >= ow[0] && j < ow[1] {
				t, r := vtOther.at(m, j, xyOther)
				acc.add(t, r)
			}
			if j == ow[0]-1 {
				addTail(&acc, other.valTail[h][below])
			}
			rest[j-lo] = acc
		}
		// Above the other corner's window, restAt sums the other corner's
		// terms from hi down to j when first asked (the candidates are
		// few), on top of the least bound known for those from hi on.
		var near sum
		nearFrom := hi + 1
		restAt := func(j int) (float64, float64) {
			if j <= ow[1] || testSplitWindowTails {
				return rest[j-lo].log(), rest[j-lo].relErr()
			}
			if nearFrom > hi {
				near = newSum()
				lt := other.valTail[h][above]
				l, r := m.restAbove(vtOther, xyOther, hi, pr.splitMemo(1))
				if l < lt {
					if !math.IsInf(l, -1) {
						near.add(l, r)
					}
				} else {
					addTail(&near, lt)
				}
				nearFrom = hi
			}
			for ; nearFrom > j; nearFrom-- {
				t, r := vtOther.at(m, nearFrom-1, xyOther)
				near.add(t, r)
			}
			if l := near.log(); l < rest[j-lo].log() {
				return l, near.relErr()
			}
			return rest[j-lo].log(), rest[j-lo].relErr()
		}
		// pre[j-lo]: F_h's terms j' < j at the pairing corner. Adding a
		// term to the paired part moves the bound by its value there
		// minus its value at the other corner (<= 0) while that part's
		// B stays <= 0, and by about nothing after: the best m is where
		// B turns positive (mNeg, the last m with B <= 0, or the next),
		// or an end.
		paired := newSum()
		addTail(&paired, at.valTail[h][below])
		if cap(pr.splitPre) < hi-lo+1 {
			pr.splitPre = make([]sum, hi-lo+1)
		}
		pre := pr.splitPre[:hi-lo+1]
		if cap(pr.splitLazy) < hi-lo+1 {
			pr.splitLazy = make([]bool, hi-lo+1)
		}
		for j := lo; j <= hi; j++ {
			if j > lo && j-1 >= aw[0] && j-1 < aw[1] {
				t, r := vtAt.at(m, j-1, xyAt)
				paired.add(t, r)
			}
			if j == aw[1]+1 {
				addTail(&paired, at.valTail[h][above])
			}
			pre[j-lo] = paired
		}
		// Below the pairing corner's window the paired part is bounded
		// from j itself (restBelow), once asked for, likewise.
		var memoAt *uvMemo
		for j := lo; j < aw[0]; j++ {
			pr.splitLazy[j-lo] = !testSplitWindowTails
		}
		preAt := func(j int) sum {
			if j < aw[0] && pr.splitLazy[j-lo] {
				pr.splitLazy[j-lo] = false
				if memoAt == nil {
					memoAt = pr.splitMemo(0)
				}
				if l, r := m.restBelow(xyAt, j, memoAt); l < pre[j-lo].log() {
					x := newSum()
					if !math.IsInf(l, -1) {
						x.add(l, r)
					}
					pre[j-lo] = x
				}
			}
			return pre[j-lo]
		}
		// B grows with m: bisect for the last m with B <= 0 (any m
		// gives a bound; this one is the best but for rounding).
		neg := func(j int) bool { return pr.fLog(preAt(j)) < gp.ly }
		mNeg := lo
		if neg(hi) {
			mNeg = hi
		} else if neg(lo) {
			a, b := lo, hi // neg(a), !neg(b)
			for b-a > 1 {
				if c := (a + b) / 2; neg(c) {
					a = c
				} else {
					b = c
				}
			}
			mNeg = a
		}
		best[h] = math.Inf(1)
		for _, j := range [4]int{lo, mNeg, min(mNeg+1, hi), hi} {
			lr, rr := restAt(j)
			best[h] = math.Min(best[h], pr.splitCandidate(preAt(j), lr, rr, gp))
		}
		if math.IsInf(best[h], 1) {
			return best[h]
		}
	}
	y := 0.0
	for h := range 2 {
		if l := pr.gtMin(pts, h); !math.IsInf(l, -1) {
			if l >= 700 {
				return math.Inf(1)
			}
			y += math.Exp(l)
		}
	}
	v := best[0] + best[1] - y
	return v + combineUlps*eps64*(math.Abs(best[0])+math.Abs(best[1])+y) + tiny
}

// trySplit says whether splitPaired is tried on b (corners pts): on
// windowed sums from alpha splitWindowedFrom on, every box; on sums of
// every j, the finite boxes within splitNear widths of the diagonal.
func (pr *problem) trySplit(b *box, pts []*point) bool {
	if pts[0].windowed() || pts[1].windowed() {
		return pr.alpha >= splitWindowedFrom
	}
	if math.IsInf(b.s1, 0) || math.IsInf(b.s2, 0) || math.IsInf(b.t1, 0) || math.IsInf(b.t2, 0) {
		return false
	}
	w := math.Max(b.s2-b.s1, b.t2-b.t1)
	return testSplitEverywhere || math.Abs(mid(b.t1, b.t2)-mid(b.s1, b.s2)) < splitNear*w
}

// splitNear: on sums of every j (n < windowFrom) splitPaired is tried
// only within splitNear box widths of the diagonal, where it was made for.
// Over the paper's grids it closed 1,189 of the 186,001 finite boxes it
// was tried on beyond 8 widths, and none of the 58,261 infinite ones,
// against 21,540 of 171,831 within; skipping those took 0.91 of the CPU
// for 571,898 boxes instead of 570,720. On windowed sums at large alpha
// it closes boxes far from the diagonal too ((10^4, 0.495, 1000, 50):
// 5,786 boxes with it there, 19,272 without), so it stays on everywhere.
const splitNear = 8

// testSplitEverywhere tries splitPaired on every box (before/after).
var testSplitEverywhere = false

// splitWindowedFrom is the alpha below which splitPaired is not tried on
// windowed sums: its work per term costs about two evaluations there, and
// at n = 10^4 near c = 1/2 it saved few boxes below alpha 10 (9,586 ->
// 9,086 at (10^4, 0.495, 5, 1e-3), 1.9 times the CPU; none at alpha
// 1.001), many above (19,252 -> 5,782 at (10^4, 0.495, 1000, 50), 1,916 ->
// 974 at (10^4, 0.495, 20, 50)).
const splitWindowedFrom = 10

// splitConstFrom, splitSpreadMin: see splitPaired. Measured at (10^4,
// 0.4999, 20, 1e-3), where log e_j spreads over 0.3: 17,891 boxes
// without the split, 17,889 with it at 1.45 times the CPU.
const (
	splitConstFrom = 3
	splitSpreadMin = 1
)

// splitCandidate returns splitPaired's bound of a half for one split: the
// paired part's sum pre at the pairing corner (G's half's logs in gp, as
// in pairHalf), the rest's log lRest at the other corner with its relative
// error rel; +Inf where a part overflows.
func (pr *problem) splitCandidate(pre sum, lRest, rel float64, gp gPair) float64 {
	l, isNeg := pr.pairHalf(pre, gp)
	lr := lRest - pr.logU
	if l >= 700 || lr >= 700 || math.IsNaN(l) || math.IsNaN(lr) {
		return math.Inf(1)
	}
	v := math.Exp(l)
	if isNeg {
		v = -v
	}
	x := 0.0 // no terms
	if !math.IsInf(lr, -1) {
		x = math.Exp(lr)
		x += x * (rel + ulpsOf(lRest, pr.logU) + expUlps*eps64*(math.Abs(lr)+1))
	}
	return v + x + combineUlps*eps64*(math.Abs(v)+x)
}

// testSplitWindowTails bounds splitPaired's rest beyond the other corner's
// window and its paired part below the pairing corner's by those windows'
// own tails, from their ends (before/after restAt and restBelow).
var testSplitWindowTails bool

// restAbove bounds the value terms j' >= j of a half with arguments xy
// (its terms vt): the term j and the bound beyond it (sideTail from j), as
// (log, relative error); +Inf where none is known.
func (m *model) restAbove(vt valueTerms, xy [2]coord, j int, mm *uvMemo) (float64, float64) {
	if j >= len(m.lw) {
		return math.Inf(-1), 0
	}
	t, r := vt.at(m, j, xy)
	a := newSum()
	a.add(t, r)
	if tail := m.sideTail(xy, kVal, above, j, j+1, mm); !math.IsInf(tail, -1) {
		a.add(tail, 0)
	}
	l := a.log()
	if math.IsNaN(l) {
		return math.Inf(1), 0
	}
	return l, a.relErr()
}

// restBelow bounds the value terms j' < j of a half with arguments xy
// (sideTail below j), as (log, relative error 0: the bound carries its
// margins); +Inf where none is known.
func (m *model) restBelow(xy [2]coord, j int, mm *uvMemo) (float64, float64) {
	l := m.sideTail(xy, kVal, below, j, j+1, mm)
	if math.IsNaN(l) {
		return math.Inf(1), 0
	}
	return l, 0
}

// splitMemo returns splitPaired's scratch memo i (0: the pairing corner,
// 1: the other), emptied.
func (pr *problem) splitMemo(i int) *uvMemo {
	if testNoMemo {
		return nil
	}
	mm := &pr.splitMemos[i]
	mm.tag = [uvSlots]int{}
	return mm
}

// tailSum returns a sum holding the bound on the omitted terms of F's
// half h at t (empty where every j was summed); halfSum, the half's value
// sum with it.
func (t *point) tailSum(h int) sum {
	a := newSum()
	if tail := t.logTail[h][kVal]; !math.IsInf(tail, -1) {
		a.add(tail, 0)
	}
	return a
}

func (t *point) halfSum(h int) sum {
	a := t.f[h][kVal]
	if tail := t.logTail[h][kVal]; !math.IsInf(tail, -1) {
		a.add(tail, 0)
	}
	return a
}

// halfArgs returns the arguments of half h at t: (p, q) or (1-p, 1-q).
func halfArgs(t *point, h int) [2]coord {
	if h == 0 {
		return [2]coord{t.p, t.q}
	}
	return [2]coord{{t.p.l1, t.p.l}, {t.q.l1, t.q.l}}
}

// ulpsOf returns termUlps ulps of 8 plus the magnitudes xs: the rounding
// of a few operations on logs of those sizes.
func ulpsOf(xs ...float64) float64 {
	m := 8.0
	for _, x := range xs {
		m += math.Abs(x)
	}
	return termUlps * eps64 * m
}

// pairHalf bounds F_h/U - k1 G_h/E over a box from above as a signed log
// (isNeg: the bound is -e^l, else e^l), for F's half h summed (fx, with
// its relative error) at the corner where G_h is smallest and the ratio
// F_h/G_h largest, with G_h's logs there and at the other corner, where it
// is largest, in g (pairG): see paired.
func (pr *problem) pairHalf(fx sum, g gPair) (l float64, isNeg bool) {
	lx, ly, r := pr.fLog(fx), g.ly, g.r
	switch {
	case math.IsInf(ly, -1): // k1 = 0
		return lx + r, false
	case math.IsInf(lx, -1): // no terms of F: -Y
		return ly - ulpsOf(ly), true
	case lx < ly:
		// X - Y = -Y (1 - X/Y), taken at its own corner.
		return ly + math.Log(-math.Expm1(lx-ly)) - ulpsOf(ly, lx), true
	case lx < 700 && ly > -700: // no overflow, no underflow
		x, y := math.Exp(lx), math.Exp(ly)
		d := x - y + expUlps*eps64*(x+y)
		ld := math.Log(d)
		return ld + r + ulpsOf(ld, r), false
	}
	return lx + r, false // X - Y <= X
}

// gPair holds pairHalf's logs of G's half: ly <= log k1 G_h/E at the
// pairing corner, and r >= the log of the ratio of G_h's largest value
// over the box to that one. A box's halves each form one (pairG) for all
// the sums of F they pair.
type gPair struct{ ly, r float64 }

// pairG returns the gPair of G's half h with at the pairing corner.
func (pr *problem) pairG(at, other *point, h int) gPair {
	lgAt, lgOther := at.ghalf(h)[2], other.ghalf(h)[2]
	lk1 := math.Log(pr.k1)
	eAt, eOther := at.grel[h], other.grel[h]
	return gPair{
		ly: lk1 + lgAt - pr.logE - eAt - ulpsOf(lk1, lgAt, pr.logE),
		r:  lgOther - lgAt + eAt + eOther + ulpsOf(lgOther, lgAt),
	}
}

// fLog returns lx >= log F_h/U for F's half summed in fx (-Inf for no
// terms).
func (pr *problem) fLog(fx sum) float64 {
	lf := fx.log()
	if math.IsInf(lf, -1) {
		return lf
	}
	return lf - pr.logU + math.Log1p(fx.relErr()) + ulpsOf(lf, pr.logU)
}

// gtMin returns the log of a lower bound on k2 G^T_h/E over a box (-Inf
// for none): G^T's half h at the smaller of pts[0], pts[1], where its
// least value is.
func (pr *problem) gtMin(pts []*point, h int) float64 {
	lo, e := math.Inf(1), 0.0
	for _, t := range pts[:2] {
		if x := t.ghalf(2 + h); x[2] < lo {
			lo, e = x[2], t.grel[2+h]
		}
	}
	if pr.k2 <= 0 || math.IsInf(lo, -1) {
		return math.Inf(-1)
	}
	lk2 := math.Log(pr.k2)
	return lk2 + lo - pr.logE - e - ulpsOf(lk2, lo, pr.logE)
}

// value returns psi at t with a bound on its error; false when a term
// overflows.
func (pr *problem) value(t *point) (val, bool) {
	f0, f1 := pr.fsum(t, 0, kVal), pr.fsum(t, 1, kVal)
	var gs [4]val
	for i := range gs {
		gs[i] = pr.gterm(t.ghalf(i)[2], 0)
		gs[i].err += gs[i].v * t.grel[i]
	}
	if !finiteAll(f0.v, f1.v, gs[0].v, gs[1].v, gs[2].v, gs[3].v) {
		return val{}, false
	}
	k1, k2 := pr.k1, pr.k2
	v := f0.v + f1.v - k1*(gs[0].v+gs[1].v) - k2*(gs[2].v+gs[3].v)
	e := f0.err + f1.err + k1*(gs[0].err+gs[1].err) + k2*(gs[2].err+gs[3].err)
	e += combineUlps * eps64 * (f0.v + f1.v + k1*(gs[0].v+gs[1].v) + k2*(gs[2].v+gs[3].v))
	return val{v, e}, true
}

// interval is a range [lo, hi].
type interval struct{ lo, hi float64 }

// diff returns x - m, rounded away from zero, computed from whichever of
// x, 1-x keeps precision.
func diff(x, m coord) float64 {
	var d float64
	if x.l < -math.Ln2 && m.l < -math.Ln2 {
		d = math.Exp(x.l) - math.Exp(m.l)
	} else {
		d = math.Exp(m.l1) - math.Exp(x.l1)
	}
	// x and m carry the relative error of their logs (a few ulps of |log|).
	sx, sm := math.Exp(math.Min(x.l, x.l1)), math.Exp(math.Min(m.l, m.l1))
	pad := combineUlps * eps64 * (math.Abs(d) + (sx+sm)*(2+math.Abs(math.Min(x.l, x.l1))+math.Abs(math.Min(m.l, m.l1))))
	return d + math.Copysign(pad, d)
}

// curvature bounds psi on the finite box b from the diagonal. There g(u,
// u) = u, so F's halves sum to sum_j w_j (1 + e_j) and G, G^T to 1 at
// every p = q: psi(p, p) is one number, psi_diag. And d/dq g(u, v) = (1 -
// alpha) dv/dq at u = v, which half 0's term j (dv/dq = 1 - e_j) and half
// 1's (dv/dq = -(1 - e_j)) cancel, as do G's and G^T's halves: psi_q(p,
// p) = 0, and likewise psi_p(p, p) = 0 (d/du g = alpha at u = v). Taylor's
// formula in q from (p, p), or in p from (q, q), then gives
//
//	psi(p, q) = psi_diag + (q - p)^2/2 psi_qq(p, xi) = psi_diag + (q - p)^2/2 psi_pp(xi', q),
//
// xi between p and q, xi' between q and p, so over b
//
//	psi <= psi_diag + min(max(0, sup_Bq psi_qq), max(0, sup_Bp psi_pp)) max (q - p)^2 / 2,
//
// with H = hull([s1, s2], [t1, t2]) (logits), Bq = [s1, s2] x H and Bp =
// H x [t1, t2], which hold the segments. Where either second derivative
// is <= 0 on its box the bound is psi_diag itself, whatever the box's
// size: at small eps psi_diag is only just below l0 + tau (3.1e-9 at
// (10^4, 0.4999, 5, 1e-3), tau 2e-9), which the Taylor forms about a
// box's center resolve only on small boxes. psi_diag is bounded from one
// evaluation, at p = q = 1/(1+e).
func (pr *problem) curvature(b *box) (float64, bool) {
	lo, hi := math.Min(b.s1, b.t1), math.Max(b.s2, b.t2)
	sides := [2][4]float64{{b.s1, b.s2, lo, hi}, {lo, hi, b.t1, b.t2}} // Bq, Bp
	if testCurveWrong == curveNoHull {
		sides[0], sides[1] = [4]float64{b.s1, b.s2, b.t1, b.t2}, [4]float64{b.s1, b.s2, b.t1, b.t2}
	}
	m := math.Inf(1)
	for i, k := range [2]int{kQQ, kPP} {
		x := sides[i]
		pts := []*point{pr.evalAt(x[0], x[2], orderAll), pr.evalAt(x[1], x[2], orderAll), pr.evalAt(x[0], x[3], orderAll), pr.evalAt(x[1], x[3], orderAll)}
		if r, ok := pr.derivRange(pts, k, [2]float64{}); ok {
			m = math.Min(m, math.Max(0, r.hi))
		}
		if m == 0 {
			break
		}
	}
	if testCurveWrong == curveNoRemainder {
		m = 0
	}
	p1, p2 := fromLogit(b.s1), fromLogit(b.s2)
	q1, q2 := fromLogit(b.t1), fromLogit(b.t2)
	d := math.Max(math.Abs(diff(q2, p1)), math.Abs(diff(q1, p2)))
	dg := pr.diagonalValue()
	ub := dg.v + dg.err + m*d*d/2*(1+4*eps64)
	return math.Nextafter(ub, math.Inf(1)), finiteAll(ub)
}

// diagonalValue returns psi_diag (curvature) with its error, for the
// current multipliers.
func (pr *problem) diagonalValue() val {
	if at := [2]float64{pr.k1, pr.k2}; pr.diagAt != at {
		v, ok := pr.value(pr.evalAt(-1, -1, 0))
		if !ok {
			v = val{math.Inf(1), 0}
		}
		pr.diag, pr.diagAt = v, at
	}
	return pr.diag
}

// curveNear says whether the curvature bound is worth its evaluations on
// b: where H is at most curveReach times b's longer side (plus one logit)
// across, and psi_diag is within curveMargin |l0| of the target. Farther
// below it (the paper's grids, eps >= 0.1: 0.6% to 100% of l0) the
// Taylor forms close the boxes near the diagonal, and of 226,000 tries
// there 837 closed a box.
func (pr *problem) curveNear(b *box) bool {
	lo, hi := math.Min(b.t1, b.s1), math.Max(b.t2, b.s2)
	if hi-lo > curveReach*math.Max(b.s2-b.s1, b.t2-b.t1)+1 {
		return false
	}
	return pr.l0+pr.tau-pr.diagonalValue().v < curveMargin*math.Abs(pr.l0)
}

const (
	curveReach  = 4
	curveMargin = 1e-2
)

// Test knobs: noCurve turns the curvature bound off (before/after);
// testCurveWrong makes it deliberately wrong, for TestCurvatureValid to
// catch: the second derivatives' ranges over b itself rather than Bq and
// Bp (curveNoHull), or the remainder dropped (curveNoRemainder).
var (
	noCurve        = false
	testCurveWrong = 0
)

const (
	curveNoHull = 1 + iota
	curveNoRemainder
)
