// Package verify checks an exported whole-box certificate (package
// certfile; docs/certificates.md, "Exported certificates") independently
// of the solver: it shares no numerical code with certify, bounds, corner,
// solver or internal/logspace.
//
// Inputs are read as exact rationals (math/big.Rat). Everything else is
// interval arithmetic on math/big.Float at 128 bits with directed rounding
// (each lower end rounded toward -Inf, each upper end toward +Inf), with
// exp and log enclosed by Taylor and atanh series whose remainders are
// bounded (arith.go; not math.Exp), powers as e^(a log x), and binomial
// coefficients exact (big.Int). Check proves, in order:
//
//  1. the parameters are in their domain and n = d k;
//  2. L1, L2 >= 0;
//  3. the claim is at least (LogU + log(L0 + Tau + L1 + L2)) / (alpha - 1),
//     the bound the pieces theorem gives (math.md 3c, with l0 = U L0,
//     tau = Tau U / E, l1 = L1 U / E, l2 = L2 U / E);
//  4. the tiles partition the half square p <= 1/2 exactly (tiling.go);
//  5. psi <= L0 + Tau on every tile (psi.go): by the monotone enclosure, or
//     on finite tiles by a second-order Taylor form with the Hessian
//     enclosed over the tile; a tile that neither closes is split in its
//     logit coordinates, and its pieces are checked the same way, up to a
//     budget.
//
// psi(p, q) = psi(1-p, 1-q) (F_n's terms j and n-j swap, G's two halves
// swap), so the half square covers the square.
package verify

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/bernamp/bernamp/certfile"
)

// ErrMalformed is wrapped by errors about a file that cannot be read as a
// certificate at all (as opposed to a certificate that is rejected).
var ErrMalformed = errors.New("verify: malformed certificate")

// Options tunes Check. A nil *Options means the defaults.
type Options struct {
	// MaxDepth caps the splits of one tile (default 24).
	MaxDepth int
	// MaxExtra caps the boxes bounded beyond the tiles (default 8 per tile
	// plus 10,000).
	MaxExtra int
}

// Report is the outcome of Check.
type Report struct {
	Accepted bool
	Failure  string  // the first failing item, when not accepted
	Tiles    int     // tiles in the file
	Boxes    int     // boxes bounded (tiles and their pieces)
	Split    int     // tiles that needed splitting
	Bound    float64 // the checked bound's upper end, rounded up to float64 (0 when not reached)
}

type cert struct {
	d, k, n               int
	c, alpha, eps, claim  *big.Rat
	l0, l1, l2, tau, logU *big.Rat
	tiles                 []box
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
	r, err := parseRat("tile end", s)
	return end{r: r}, err
}

func parse(f *certfile.File) (*cert, error) {
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	c := &cert{d: f.D, k: f.K, n: f.N}
	for _, x := range []struct {
		name string
		s    string
		dst  **big.Rat
	}{{"c", f.C, &c.c}, {"alpha", f.Alpha, &c.alpha}, {"eps", f.Eps, &c.eps}, {"claim", f.Claim, &c.claim},
		{"l0", f.L0, &c.l0}, {"l1", f.L1, &c.l1}, {"l2", f.L2, &c.l2}, {"tau", f.Tau, &c.tau}, {"log_u", f.LogU, &c.logU}} {
		r, err := parseRat(x.name, x.s)
		if err != nil {
			return nil, err
		}
		*x.dst = r
	}
	for i, t := range f.Tiles {
		var e [4]end
		for j, s := range t {
			v, err := parseEnd(s)
			if err != nil {
				return nil, fmt.Errorf("tile %d: %w", i+1, err)
			}
			e[j] = v
		}
		c.tiles = append(c.tiles, box{e[0], e[1], e[2], e[3]})
	}
	return c, nil
}

// Check verifies f and returns the report: accepted, or the first failing
// item. The error is non-nil only for a malformed file (ErrMalformed) or a
// cancelled ctx. The work is sequential and deterministic.
func Check(ctx context.Context, f *certfile.File, o *Options) (Report, error) {
	c, err := parse(f)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Tiles: len(c.tiles)}
	reject := func(format string, args ...any) (Report, error) {
		rep.Failure = fmt.Sprintf(format, args...)
		return rep, nil
	}
	zero, one, half := new(big.Rat), big.NewRat(1, 1), big.NewRat(1, 2)
	// 1. Domain.
	switch {
	case c.n != c.d*c.k || c.n/c.k != c.d:
		return reject("n = %d is not d k = %d x %d", c.n, c.d, c.k)
	case c.c.Sign() <= 0 || c.c.Cmp(half) >= 0:
		return reject("c = %s is not in (0, 1/2)", f.C)
	case c.alpha.Cmp(one) <= 0:
		return reject("alpha = %s is not > 1", f.Alpha)
	case c.eps.Sign() < 0:
		return reject("eps = %s is negative", f.Eps)
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
	// 5. The inequality on every tile.
	pr := newProblem(c)
	maxDepth, maxExtra := 24, 8*len(c.tiles)+10_000
	if o != nil && o.MaxDepth > 0 {
		maxDepth = o.MaxDepth
	}
	if o != nil && o.MaxExtra > 0 {
		maxExtra = o.MaxExtra
	}
	extra := 0
	for i, t := range c.tiles {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		before := rep.Boxes
		if bad, ub := pr.prove(t, maxDepth, &extra, maxExtra, &rep.Boxes); bad != nil {
			return reject("tile %d %v: psi is not proved <= l0 + tau = %s on %v (bound %s)",
				i+1, t, pr.rhs.Text('g', 20), *bad, ub)
		}
		if rep.Boxes-before > 1 {
			rep.Split++
		}
	}
	rep.Accepted = true
	return rep, nil
}

func newProblem(c *cert) *problem {
	one := constIval(1)
	a := ratIval(c.alpha)
	pr := &problem{a: a, am1: a.sub(one), oma: one.sub(a)}
	pr.f = ratIval(c.logU).neg().exp()
	einv := pr.am1.mul(ratIval(c.eps)).neg().exp() // 1/E
	pr.k1, pr.k2 = ratIval(c.l1).mul(einv), ratIval(c.l2).mul(einv)
	pr.rhs = ratIval(new(big.Rat).Add(c.l0, c.tau)).lo
	cc := ratIval(c.c)
	cb := one.sub(cc)
	// Powers c^i and (1-c)^i for i = 0..n, and C(n, j) exactly by
	// C(n, j) = C(n, j-1) (n-j+1) / j: O(n) steps.
	n := c.n
	cp, cbp := make([]ival, n+1), make([]ival, n+1)
	cp[0], cbp[0] = one, one
	for i := 1; i <= n; i++ {
		cp[i], cbp[i] = cp[i-1].mul(cc), cbp[i-1].mul(cb)
	}
	binom := big.NewInt(1)
	for j := 0; j <= n; j++ {
		if j > 0 {
			binom.Mul(binom, big.NewInt(int64(n-j+1)))
			binom.Quo(binom, big.NewInt(int64(j))) // exact
		}
		bin := intIval(binom)
		b := bin.mul(cp[j]).mul(cbp[n-j])
		bp := bin.mul(cp[n-j]).mul(cbp[j])
		pr.bj = append(pr.bj, b)
		pr.bpj = append(pr.bpj, bp)
		pr.dj = append(pr.dj, b.sub(bp))
	}
	return pr
}

// prove checks psi <= rhs on t, splitting it when needed; it returns nil,
// or the box that failed and its best bound as text.
func (pr *problem) prove(t box, depth int, extra *int, maxExtra int, boxes *int) (*box, string) {
	*boxes++
	ub := pr.bound(t)
	if ub != nil && ub.Cmp(pr.rhs) <= 0 {
		return nil, ""
	}
	text := "none"
	if ub != nil {
		text = ub.Text('g', 20)
	}
	if v := pr.centerValue(t); v != nil && v.Cmp(pr.rhs) > 0 {
		return &t, "psi at the center " + v.Text('g', 20) + " (a violation)"
	}
	if depth == 0 || *extra+2 > maxExtra {
		return &t, text
	}
	*extra += 2
	a, b, ok := splitBox(t)
	if !ok {
		return &t, text
	}
	if bad, s := pr.prove(a, depth-1, extra, maxExtra, boxes); bad != nil {
		return bad, s
	}
	return pr.prove(b, depth-1, extra, maxExtra, boxes)
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
