// Package verify checks an exported whole-box certificate (package
// certfile; docs/certificates.md, "Exported certificates") independently
// of the solver: it shares no numerical code with certify, bounds, corner,
// solver or internal/logspace.
//
// Inputs are read as exact rationals (math/big.Rat). Check proves, in order:
//
//  1. the parameters are in their domain, n = d k, and n and the number
//     of tiles are within the caps MaxN and MaxTiles;
//  2. L1, L2 >= 0;
//  3. the claim is at least (LogU + log(L0 + Tau + L1 + L2)) / (alpha - 1),
//     the bound the pieces theorem gives (math.md 3c, with l0 = U L0,
//     tau = Tau U / E, l1 = L1 U / E, l2 = L2 U / E);
//  4. the tiles partition the half square p <= 1/2 exactly (tiling.go),
//     and the diagonal band's boxes, if any, partition the band (band.go);
//  5. psi <= L0 + Tau on every band box (band.go: a Taylor form of order
//     3 in (s, r = t - s)) and on every tile not inside the band (psi.go):
//     by the monotone enclosure, the paired one, in float64 the
//     split-paired one (psi64.go, splitPaired), or
//     on finite tiles by a second-order Taylor form with the Hessian
//     enclosed over the tile; a tile that neither closes is split in its
//     logit coordinates, and its pieces are checked the same way, up to a
//     budget.
//
// Items 1 to 4 are exact (big.Rat) or in big.Float interval arithmetic at
// 128 bits with directed rounding, exp and log enclosed by Taylor and
// atanh series whose remainders are bounded (arith.go; not math.Exp).
// Item 5 is tried first in float64 interval arithmetic (fast.go,
// exp64.go, psi64.go): every operation rounded outward by one ulp, exp and
// log by this package's own float64 range reduction and series with
// bounded remainders (no trust in math.Exp or math.Log), and for n >=
// windowFrom the sums over j restricted to a window, with the omitted
// terms bounded in closed form (problem64.tail). A box that the float64
// bounds do not close is re-tried with every j summed, then (when it
// missed by a rounding-sized margin or cannot be split further, and n <=
// bigFallbackMaxN) with the big.Float bounds of psi.go; each accepted box
// is proved by one of them. The binomial weights are enclosed at 128 bits
// by a recurrence (eachWeight) and rounded outward to float64, once per
// certificate.
//
// psi(p, q) = psi(1-p, 1-q) (F_n's terms j and n-j swap, G's two halves
// swap), so the half square covers the square.
//
// A ranges certificate (certfile.KindRanges) is checked the same way with
// F's terms over the count vectors of its groups (terms.go): item 1 also
// checks the groups (checkGroups, at most MaxTerms terms), and the sums
// are not windowed.
package verify

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"sort"
	"strconv"

	"github.com/bernamp/bernamp/certfile"
)

// ErrMalformed is wrapped by errors about a file that cannot be read as a
// certificate at all (as opposed to a certificate that is rejected).
var ErrMalformed = errors.New("verify: malformed certificate")

// MaxN and MaxTiles cap the work a hostile file can ask for: a file with
// a larger n or more tiles is rejected before any work (the weights cost
// O(n) time and memory, the tiles O(tiles)).
const (
	MaxN     = 10_000_000
	MaxTiles = 10_000_000
)

// Options tunes Check. A nil *Options means the defaults.
type Options struct {
	// MaxDepth caps the splits of one tile (default 24).
	MaxDepth int
	// MaxExtra caps the boxes bounded beyond the tiles (default 8 per tile
	// plus 10,000).
	MaxExtra int
	// MaxFallback caps the boxes re-tried in big.Float (0: no cap). Each
	// costs O(n) exp and log at 128 bits, so a cap bounds the time of a
	// file whose tiles the float64 bounds do not close; past it such a box
	// is split or rejected (sound, and deterministic).
	MaxFallback int
}

// Report is the outcome of Check.
type Report struct {
	Accepted bool
	Failure  string  // the first failing item, when not accepted
	Tiles    int     // tiles in the file
	Boxes    int     // boxes bounded (tiles and their pieces)
	Split    int     // tiles that needed splitting
	Bound    float64 // the checked bound's upper end, rounded up to float64 (0 when not reached)
	Fallback int     // boxes that the float64 bounds did not close, re-tried in big.Float
	Band     int     // boxes of the diagonal band in the file (band.go)
	InBand   int     // tiles inside the band (not bounded: the band's boxes hold)
}

type cert struct {
	d, k, n               int
	c, alpha, eps, claim  *big.Rat
	l0, l1, l2, tau, logU *big.Rat
	tiles                 []box
	// groups are the bit groups of a ranges certificate (c is nil then);
	// nil for a pieces certificate, whose one group is (n, c) (grps).
	groups []group
	band   *bandCert // the diagonal band (band.go), nil for none
}

func parseRat(name, s string) (*big.Rat, error) {
	if !certfile.IsDecimal(s) {
		return nil, fmt.Errorf("%w: %s is %q, not a decimal number", ErrMalformed, name, s)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil, fmt.Errorf("%w: %s is %q, not a decimal number", ErrMalformed, name, s)
	}
	return r, nil
}

func parseEnd(s string) (end, error) {
	switch s {
	case "inf", "+inf":
		return end{inf: 1}, nil
	case "-inf":
		return end{inf: -1}, nil
	}
	if f, ok := exactDecimal(s); ok {
		return end{r: new(big.Rat).SetFloat64(f), f: f, exact: true}, nil
	}
	r, err := parseRat("tile end", s)
	if err != nil {
		return end{}, err
	}
	f, exact := r.Float64()
	return end{r: r, f: f, exact: exact}, nil
}

func parse(f *certfile.File) (*cert, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	c := &cert{d: f.D, k: f.K, n: f.N}
	for i, g := range f.Groups {
		r, err := parseRat(fmt.Sprintf("group %d c", i+1), g.C)
		if err != nil {
			return nil, err
		}
		c.groups = append(c.groups, group{g.N, r})
	}
	cs := f.C
	if f.Kind == certfile.KindRanges {
		cs = f.Groups[0].C // the smallest c_g (checked in Check)
	}
	for _, x := range []struct {
		name string
		s    string
		dst  **big.Rat
	}{{"c", cs, &c.c}, {"alpha", f.Alpha, &c.alpha}, {"eps", f.Eps, &c.eps}, {"claim", f.Claim, &c.claim},
		{"l0", f.L0, &c.l0}, {"l1", f.L1, &c.l1}, {"l2", f.L2, &c.l2}, {"tau", f.Tau, &c.tau}, {"log_u", f.LogU, &c.logU}} {
		r, err := parseRat(x.name, x.s)
		if err != nil {
			return nil, err
		}
		*x.dst = r
	}
	ends := endCache{}
	var err error
	if c.tiles, err = ends.boxes(f.Tiles, "tile"); err != nil {
		return nil, err
	}
	if len(f.BandBoxes) > 0 {
		bc := &bandCert{}
		for _, x := range []struct {
			s   string
			dst *end
		}{{f.BandBeta, &bc.beta}, {f.BandS1, &bc.s1}, {f.BandS2, &bc.s2}} {
			v, err := ends.parse(x.s)
			if err != nil {
				return nil, fmt.Errorf("band: %w", err)
			}
			*x.dst = v
		}
		if bc.boxes, err = ends.boxes(f.BandBoxes, "band box"); err != nil {
			return nil, err
		}
		c.band = bc
	}
	return c, nil
}

// boxes parses the boxes ts (named what in errors).
func (m endCache) boxes(ts [][4]string, what string) ([]box, error) {
	out := make([]box, 0, len(ts))
	for i, t := range ts {
		var e [4]end
		for j, s := range t {
			v, err := m.parse(s)
			if err != nil {
				return nil, fmt.Errorf("%s %d: %w", what, i+1, err)
			}
			e[j] = v
		}
		out = append(out, box{e[0], e[1], e[2], e[3]})
	}
	return out, nil
}

// Check verifies f and returns the report: accepted, or the first failing
// item. The error is non-nil only for a malformed file (ErrMalformed) or a
// cancelled ctx. The work is sequential and deterministic.
func Check(ctx context.Context, f *certfile.File, o *Options) (Report, error) {
	switch f.Kind {
	case certfile.KindClosedForm:
		return checkClosedForm(ctx, f)
	case certfile.KindPureDP:
		return checkPureDP(ctx, f)
	case certfile.KindDeltaPieces:
		return checkDeltaPieces(ctx, f)
	case certfile.KindDeltaCorners:
		return checkDeltaCorners(ctx, f)
	case certfile.KindProfile:
		return checkProfile(ctx, f)
	}
	if len(f.Tiles) > MaxTiles {
		return Report{Tiles: len(f.Tiles), Failure: fmt.Sprintf("%d tiles exceed the checker's cap of %d", len(f.Tiles), MaxTiles)}, nil
	}
	c, err := parse(f)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Tiles: len(c.tiles), Band: len(bandBoxes(c))}
	reject := func(format string, args ...any) (Report, error) {
		rep.Failure = fmt.Sprintf(format, args...)
		return rep, nil
	}
	zero, one, half := new(big.Rat), big.NewRat(1, 1), big.NewRat(1, 2)
	// 1. Domain.
	switch {
	case c.n > MaxN:
		return reject("n = %d exceeds the checker's cap of %d", c.n, MaxN)
	case c.n != c.d*c.k || c.n/c.k != c.d:
		return reject("n = %d is not d k = %d x %d", c.n, c.d, c.k)
	case c.c.Sign() <= 0 || c.c.Cmp(half) >= 0:
		return reject("c = %s is not in (0, 1/2)", c.c.FloatString(20))
	case c.alpha.Cmp(one) <= 0:
		return reject("alpha = %s is not > 1", f.Alpha)
	case c.eps.Sign() < 0:
		return reject("eps = %s is negative", f.Eps)
	}
	if why := checkGroups(c); why != "" {
		return reject("%s", why)
	}
	// 2. Multipliers.
	if c.l1.Cmp(zero) < 0 {
		return reject("l1 = %s is negative", f.L1)
	}
	if c.l2.Cmp(zero) < 0 {
		return reject("l2 = %s is negative", f.L2)
	}
	// 3. The bound against the claim.
	s := new(big.Rat).Add(c.l0, c.tau)
	s.Add(s, c.l1).Add(s, c.l2)
	if s.Sign() <= 0 {
		return reject("l0 + tau + l1 + l2 = %s is not positive: no bound", s.FloatString(20))
	}
	am1 := new(big.Rat).Sub(c.alpha, one)
	bound := ratIval(c.logU).add(ratIval(s).log()).div(ratIval(am1))
	rep.Bound, _ = newUp(53).Set(bound.hi).Float64()
	claim := ratIval(c.claim)
	if claim.lo.Cmp(bound.hi) < 0 {
		return reject("claim %s is below the checked bound %s", f.Claim, bound.hi.Text('g', 20))
	}
	// 4. Tiling.
	if err := checkTiling(c.tiles); err != nil {
		return reject("tiling: %v", err)
	}
	if c.band != nil {
		if err := checkBand(c.band); err != nil {
			return reject("band: %v", err)
		}
	}
	// 5. The inequality on every tile.
	ch := newChecker(c)
	ch.ctx = ctx
	if o != nil {
		ch.maxFallback = o.MaxFallback
	}
	maxDepth, maxExtra := 24, 8*len(c.tiles)+10_000
	if o != nil && o.MaxDepth > 0 {
		maxDepth = o.MaxDepth
	}
	if o != nil && o.MaxExtra > 0 {
		maxExtra = o.MaxExtra
	}
	extra := 0
	for i, b := range bandBoxes(c) {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if bad, ub := ch.proveBand(b, maxDepth, &extra, maxExtra, &rep.Boxes); bad != nil {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			return reject("band box %d %v (s, r): psi is not proved <= l0 + tau = %s on %v (bound %s)",
				i+1, b, ch.rhs.Text('g', 20), *bad, ub)
		}
	}
	// Column by column (by s, then t): neighbours share their ends, whose
	// terms the float64 bounds keep while they are in use (keepTerms).
	order := make([]int, len(c.tiles))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		x, y := c.tiles[order[a]], c.tiles[order[b]]
		if x.s1.f != y.s1.f {
			return x.s1.f < y.s1.f
		}
		if x.s2.f != y.s2.f {
			return x.s2.f < y.s2.f
		}
		return x.t1.f < y.t1.f
	})
	for _, i := range order {
		t := c.tiles[i]
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if c.band.inBand(t) {
			rep.InBand++
			continue // inside the band, whose boxes are proved above
		}
		before := rep.Boxes
		ch.floatLeft = floatSplitBoxes
		if bad, ub := ch.prove(t, maxDepth, &extra, maxExtra, &rep.Boxes); bad != nil {
			if err := ctx.Err(); err != nil {
				return rep, err
			}
			rep.Fallback = ch.fallback
			budget := ""
			if ch.maxFallback > 0 && ch.fallback >= ch.maxFallback {
				budget = fmt.Sprintf(" (the budget of %d boxes in big.Float ran out)", ch.maxFallback)
			}
			return reject("tile %d %v: psi is not proved <= l0 + tau = %s on %v (bound %s)%s",
				i+1, t, ch.rhs.Text('g', 20), *bad, ub, budget)
		}
		if rep.Boxes-before > 1 {
			rep.Split++
		}
	}
	rep.Fallback = ch.fallback
	rep.Accepted = true
	return rep, nil
}

// checker proves the inequality on boxes: by the float64 bounds over the
// window (fast), then over every j (full, when the fast one is windowed),
// then by the big.Float bounds (slow, built on first use).
type checker struct {
	c          *cert
	rhs        *big.Float
	fast, full *problem64
	slow       *problem
	fallback   int
	// maxFallback caps fallback (Options.MaxFallback; 0: no cap).
	maxFallback int
	// floatLeft: the float64 bounds floatSplit may still spend on the
	// current tile (set to floatSplitBoxes for each).
	floatLeft int
	ctx       context.Context // ends the proof between boxes
	terms     int             // the terms of F: n + 1 for a pieces certificate
	band      *bandProblem    // the band's bounds (nil without a band)
}

func newChecker(c *cert) *checker {
	rhs := ratIval(new(big.Rat).Add(c.l0, c.tau)).lo
	fast := newProblem64(c, rhs, true)
	ch := &checker{c: c, rhs: rhs, fast: fast, full: fast, terms: len(fast.bj)}
	if fast.windowed() {
		ch.full = fast.full()
	}
	if c.band != nil {
		// The band's centers need psi's derivatives to a few 1e-18 only
		// (bandBits), the window's tail bounded as everywhere.
		ch.band = newBandProblem(c, newProblem64Bits(c, rhs, true, bandBits))
	}
	return ch
}

// bandBoxes returns the band's boxes of c (none without a band).
func bandBoxes(c *cert) []box {
	if c.band == nil {
		return nil
	}
	return c.band.boxes
}

func (ch *checker) big() *problem {
	if ch.slow == nil {
		ch.slow = newProblem(ch.c)
	}
	return ch.slow
}

// testNoFallback is a test hook: the big.Float bounds are not tried.
var testNoFallback bool

// bigFallbackMaxN is the largest n (for a ranges certificate the number
// of terms less one) for which a box that the float64 bounds
// do not close is re-tried in big.Float: beyond it the big.Float bounds
// (O(n) exp and log at 128 bits each, about 1 s a box at n = 10^4) would
// let a rejected file take hours. The box is then split, or rejected,
// which is always sound.
const bigFallbackMaxN = 2000

// nearRel is how close (relative to rhs) a float64 bound that fails must
// come for the big.Float bounds to be tried before a split: they compute
// the same bounds and differ from the float64 ones by rounding only
// (about 1e-12 relative on the paper's grids, more only where psi's terms
// cancel by orders of magnitude), so a float64 bound further above rhs
// than that is not closed by them either, and the box is split at once. A
// speed rule only, never an acceptance: the big.Float bounds are also
// tried on a box with no float64 bound (an overflow, say) and on one that
// cannot be split further.
const nearRel = 1e-6

// bound says whether psi <= rhs is proved on t by a float64 bound; near
// says whether the bound failed by a rounding-sized margin (or by an
// arithmetic exception), text is the best bound.
func (ch *checker) bound(t box) (closed, near bool, text string) {
	ub := ch.fast.bound(t)
	if ub <= ch.fast.rhs {
		return true, false, ""
	}
	if ch.full != ch.fast {
		u := ch.full.bound(t)
		if u <= ch.full.rhs {
			return true, false, ""
		}
		ub = min(ub, u)
	}
	if math.IsInf(ub, 1) {
		return false, true, "none"
	}
	r := ch.fast.rhs
	return false, ub-r <= nearRel*math.Abs(r), strconv.FormatFloat(ub, 'g', 17, 64)
}

// bigAvailable says whether the big.Float bounds may be tried: n at most
// bigFallbackMaxN and the budget (maxFallback) not spent.
func (ch *checker) bigAvailable() bool {
	return !testNoFallback && ch.terms <= bigFallbackMaxN+1 && !(ch.maxFallback > 0 && ch.fallback >= ch.maxFallback)
}

// bigBound says whether psi <= rhs is proved on t by a big.Float bound
// (for n <= bigFallbackMaxN), with the bound as text.
func (ch *checker) bigBound(t box) (bool, string) {
	if !ch.bigAvailable() {
		return false, ""
	}
	ch.fallback++
	bu := ch.big().bound(t)
	if bu == nil {
		return false, ""
	}
	return bu.Cmp(ch.rhs) <= 0, floatText(bu)
}

// floatText formats x with 20 digits, or as m x 2^e when its exponent is
// so large that the decimal conversion would take long (a bound far out at
// a huge logit).
func floatText(x *big.Float) string {
	if e := x.MantExp(nil); e > -4000 && e < 4000 {
		return x.Text('g', 20)
	}
	m := new(big.Float)
	e := x.MantExp(m)
	f, _ := m.Float64()
	return fmt.Sprintf("%.17g x 2^%d", f, e)
}

// centerValue returns a lower bound of psi at the center of the finite
// box t as text when it proves psi > rhs there (a violation), else nil:
// from the float64 enclosure, then (with useBig, for n <= bigFallbackMaxN)
// the big.Float one.
func (ch *checker) centerValue(t box, useBig bool) *string {
	if v := ch.fast.centerValue(t); v > ch.fast.rhs && !math.IsInf(v, 1) {
		// v > rhs64 need not mean v > rhs (rhs64 <= rhs): compare exactly.
		if new(big.Float).SetFloat64(v).Cmp(ch.rhs) > 0 {
			s := strconv.FormatFloat(v, 'g', 17, 64)
			return &s
		}
	}
	if !useBig || !ch.bigAvailable() {
		return nil
	}
	if v := ch.big().centerValue(t); v != nil && v.Cmp(ch.rhs) > 0 {
		s := floatText(v)
		return &s
	}
	return nil
}

// prove checks psi <= rhs on t, splitting it when needed; it returns nil,
// or the box that failed and its best bound as text.
func (ch *checker) prove(t box, depth int, extra *int, maxExtra int, boxes *int) (*box, string) {
	if ch.ctx.Err() != nil {
		return &t, "cancelled"
	}
	*boxes++
	ok, near, text := ch.bound(t)
	if ok {
		return nil, ""
	}
	canSplit := depth > 0 && *extra+2 <= maxExtra
	// A tile beyond underLogit on one side only is split (splitBox)
	// before big.Float is tried: that costs seconds a tile at n = 10^3,
	// and float64 closes the halves.
	flat := !testNoBeyond && t.finite() && beyond(t.s1, t.s2) != beyond(t.t1, t.t2)
	// A near tile is first halved in float64 alone, up to
	// floatSplitLevels deep within floatSplitBoxes: where its parts
	// close, that is far cheaper than big.Float, which costs seconds a
	// tile at n = 10^3 and often fails on them anyway (measured at (1000,
	// 0.49, 1.001, 1e-3): 6 tiles, all failing in big.Float, 16.7 s for
	// the check, against 3.2 s halved). A try that fails costs at most
	// floatSplitBoxes float64 bounds for the whole tile and proves nothing.
	// Only where big.Float is the alternative (else the tile is split
	// below anyway), and within floatLeft for the whole tile.
	if near && canSplit && !flat && !testNoFloatSplit && ch.bigAvailable() {
		budget, parts := min(ch.floatLeft, maxExtra-*extra), 0
		start := budget
		ok := ch.floatSplit(t, floatSplitLevels, &budget, &parts)
		ch.floatLeft -= start - budget
		if ok {
			*extra += parts
			*boxes += parts
			return nil, ""
		}
	}
	if (near && !(flat && canSplit)) || !canSplit {
		ok, bt := ch.bigBound(t)
		if ok {
			return nil, ""
		}
		if bt != "" {
			text = bt
		}
	}
	if v := ch.centerValue(t, !canSplit); v != nil {
		return &t, "psi at the center " + *v + " (a violation)"
	}
	if !canSplit {
		return &t, text
	}
	*extra += 2
	a, b, ok := splitBox(t)
	if !ok {
		return &t, text
	}
	if bad, s := ch.prove(a, depth-1, extra, maxExtra, boxes); bad != nil {
		return bad, s
	}
	return ch.prove(b, depth-1, extra, maxExtra, boxes)
}

// floatSplit says whether psi <= rhs is proved on both halves of t by
// float64 bounds, each half that is not halved again (up to levels deep)
// while budget lasts; parts counts the boxes bounded.
func (ch *checker) floatSplit(t box, levels int, budget, parts *int) bool {
	if ch.ctx.Err() != nil || *budget < 2 {
		return false
	}
	a, b, ok := splitBox(t)
	if !ok {
		return false
	}
	*budget -= 2
	for _, x := range [2]box{a, b} {
		*parts++
		if closed, _, _ := ch.bound(x); closed {
			continue
		}
		if levels <= 1 || !ch.floatSplit(x, levels-1, budget, parts) {
			return false
		}
	}
	return true
}

// floatSplitLevels and floatSplitBoxes bound the float64 halvings tried
// on a near tile, and on its parts, before big.Float (prove): at alpha
// 1.001, n = 50 to 1000, each near tile closed in a few boxes.
// testNoFloatSplit turns them off (before/after).
const (
	floatSplitLevels = 6
	floatSplitBoxes  = 64
)

var testNoFloatSplit bool

func newProblem(c *cert) *problem {
	one := constIval(1)
	a := ratIval(c.alpha)
	pr := &problem{a: a, am1: a.sub(one), oma: one.sub(a)}
	pr.f = ratIval(c.logU).neg().exp()
	einv := pr.am1.mul(ratIval(c.eps)).neg().exp() // 1/E
	pr.k1, pr.k2 = ratIval(c.l1).mul(einv), ratIval(c.l2).mul(einv)
	pr.rhs = ratIval(new(big.Rat).Add(c.l0, c.tau)).lo
	// The weights of each group by exact binomials and repeated products
	// (O(n_g) steps), multiplied over the count vectors (terms.go).
	gs := c.grps()
	ws := make([][]ival, len(gs))
	for g, gr := range gs {
		ws[g] = groupWeights(gr.n, gr.c)
	}
	t := termCount(gs, math.MaxInt)
	pr.bj, pr.bpj, pr.dj = make([]ival, t), make([]ival, t), make([]ival, t)
	products(gs, ws, func(i int, a ival) { pr.bj[i], pr.bpj[t-1-i] = a, a })
	for i := range pr.bj {
		pr.dj[i] = pr.bj[i].sub(pr.bpj[i])
	}
	pr.side = sides(gs, t)
	pr.pairThird = !slices.Contains(pr.side, sideUnknown)
	return pr
}

// bound returns an upper bound of psi on t (nil when none: an arithmetic
// exception, which never accepts).
func (pr *problem) bound(t box) (ub *big.Float) {
	defer func() {
		if r := recover(); r != nil {
			if !isArith(r) {
				panic(r)
			}
			ub = nil
		}
	}()
	p1, p2, q1, q2 := logistic(t.s1), logistic(t.s2), logistic(t.t1), logistic(t.t2)
	ub = pr.monotone(p1, p2, q1, q2)
	if ub.Cmp(pr.rhs) <= 0 {
		return ub
	}
	if pb := pr.paired(p1, p2, q1, q2); pb != nil && pb.Cmp(ub) < 0 {
		ub = pb
		if ub.Cmp(pr.rhs) <= 0 {
			return ub
		}
	}
	if t.s1.inf != 0 || t.s2.inf != 0 || t.t1.inf != 0 || t.t2.inf != 0 {
		return ub
	}
	ms, mt := logistic(midEnd(t.s1, t.s2)), logistic(midEnd(t.t1, t.t2))
	for _, paired := range []bool{false, true} {
		if tb := pr.taylor(p1, p2, q1, q2, ms, mt, paired); tb != nil {
			ub = fmin(ub, tb)
			if ub.Cmp(pr.rhs) <= 0 {
				return ub
			}
		}
	}
	for axis := range 2 {
		if pb := pr.partial(p1, p2, q1, q2, ms, mt, axis); pb != nil {
			ub = fmin(ub, pb)
			if ub.Cmp(pr.rhs) <= 0 {
				return ub
			}
		}
	}
	return ub
}

// splitBox halves t in logit coordinates: an infinite side first (a step
// of max(1, |end|) from its finite end, or at 0 when both ends are
// infinite), else the wider side at its midpoint.
func splitBox(t box) (box, box, bool) {
	mid := func(lo, hi end) end {
		switch {
		case lo.inf < 0 && hi.inf > 0:
			return end{r: new(big.Rat)}
		case lo.inf < 0:
			step := new(big.Rat).Abs(hi.r)
			if step.Cmp(big.NewRat(1, 1)) < 0 {
				step.SetInt64(1)
			}
			return end{r: new(big.Rat).Sub(hi.r, step)}
		case hi.inf > 0:
			step := new(big.Rat).Abs(lo.r)
			if step.Cmp(big.NewRat(1, 1)) < 0 {
				step.SetInt64(1)
			}
			return end{r: new(big.Rat).Add(lo.r, step)}
		}
		m := new(big.Rat).Add(lo.r, hi.r)
		return end{r: m.Mul(m, big.NewRat(1, 2))}
	}
	infS := t.s1.inf != 0 || t.s2.inf != 0
	infT := t.t1.inf != 0 || t.t2.inf != 0
	alongS := infS
	if !infS && !infT {
		ws := new(big.Rat).Sub(t.s2.r, t.s1.r)
		wt := new(big.Rat).Sub(t.t2.r, t.t1.r)
		alongS = ws.Cmp(wt) >= 0
		// Beyond logit underLogit p (or 1 - p) is below float64's
		// least number: the enclosures see it as [0, tiny] (and its log),
		// and halving that side gains nothing. At (10^4, 0.495, 1.001,
		// 1e-3) the solver's tiles [-1024, -768] x [-10, -8] were split
		// along s down to [-947, -946] x [-10, -9] and still failed;
		// halved along t they close.
		if flatS, flatT := beyond(t.s1, t.s2), beyond(t.t1, t.t2); flatS != flatT && !testNoBeyond {
			alongS = flatT
		}
	}
	a, b := t, t
	if alongS {
		m := mid(t.s1, t.s2)
		a.s2, b.s1 = m, m
	} else {
		m := mid(t.t1, t.t2)
		a.t2, b.t1 = m, m
	}
	return a, b, true
}

// underLogit: beyond it (|logit| >= 745) e^-|logit| underflows float64.
// testNoBeyond is a test hook: tiles beyond it are split and tried in
// big.Float as any other.
const underLogit = 745

var testNoBeyond bool

// beyond says whether the finite logit range [lo, hi] lies beyond
// underLogit on one side.
func beyond(lo, hi end) bool {
	return hi.r.Cmp(big.NewRat(-underLogit, 1)) <= 0 || lo.r.Cmp(big.NewRat(underLogit, 1)) >= 0
}

// centerValue returns a lower bound of psi at a point of the finite box t
// (its logit center), or nil for an infinite box: above the right side it
// proves the inequality false.
func (pr *problem) centerValue(t box) (v *big.Float) {
	if t.s1.inf != 0 || t.s2.inf != 0 || t.t1.inf != 0 || t.t2.inf != 0 {
		return nil
	}
	defer func() {
		if r := recover(); r != nil {
			if !isArith(r) {
				panic(r)
			}
			v = nil
		}
	}()
	ms, mt := logistic(midEnd(t.s1, t.s2)), logistic(midEnd(t.t1, t.t2))
	return pr.derivs(ms, ms, mt, mt, kindsPoint[:1])[0].lo
}

// midEnd returns the midpoint of two finite logit ends.
func midEnd(a, b end) end {
	m := new(big.Rat).Add(a.r, b.r)
	return end{r: m.Mul(m, big.NewRat(1, 2))}
}

// isArith says whether a recovered panic is an arithmetic exception of
// big.Float (NaN) or of this package's domain checks.
func isArith(r any) bool {
	switch r.(type) {
	case big.ErrNaN, arithError:
		return true
	}
	return false
}
