package verify

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strconv"

	"github.com/bernamp/bernamp/certfile"
)

// The input mechanisms of a profile certificate known by their data
// (certfile.Input): an RDP curve with its conversion, profile points,
// a PLD. inputBound gives upper bounds on their profiles at eps >= 0 in
// this package's outward-rounded float64 arithmetic; newKindBound
// amplifies them as it does the formula mechanisms'.

// maxInputOrder caps the orders (and RDP values) of an rdp input that
// give a bound: a line from a larger one is left out (fewer upper bounds
// only raise the minimum), so the float64 arithmetic stays finite.
const maxInputOrder = 1e12

// inputBound returns upper bounds at eps >= 0 on the two directions'
// profiles of a step kind of mechanism rdp, points or pld (rev nil: the
// mechanism is symmetric), or a rejection message, or an error
// (malformed).
func inputBound(k certfile.ProfileKind) (fwd, rev func(float64) float64, msg string, err error) {
	in := k.Input
	if in == nil {
		return nil, nil, "", fmt.Errorf("%w: mechanism %s without its input data", ErrMalformed, k.Mechanism)
	}
	switch k.Mechanism {
	case "rdp":
		fwd, msg, err = rdpBound(in)
	case "points":
		if fwd, msg, err = chordBound(in.Eps, in.Delta); msg == "" && err == nil && in.Reverse != nil {
			rev, msg, err = chordBound(in.Eps, in.Reverse)
			msg = prefixed("reverse: ", msg)
		}
	case "pld":
		hr, perr := parseRat("input discretization", in.Discretization)
		if perr != nil {
			return nil, nil, "", perr
		}
		h, exact := hr.Float64()
		if !exact || !(h > 0) {
			return nil, nil, fmt.Sprintf("input discretization %s is not a float64 > 0", in.Discretization), nil
		}
		if fwd, msg, err = pldBound(in.Remove, h); msg == "" && err == nil && in.Add != nil {
			rev, msg, err = pldBound(in.Add, h)
			msg = prefixed("input add: ", msg)
		}
	default:
		return nil, nil, "", fmt.Errorf("%w: mechanism %q has no input data", ErrUnsupported, k.Mechanism)
	}
	return fwd, rev, msg, err
}

func prefixed(p, msg string) string {
	if msg == "" {
		return ""
	}
	return p + msg
}

// logLine is one order's bound log delta(e) <= b - a e (a >= 0; a a lower
// end and b an upper end of the exact coefficients).
type logLine struct{ a, b float64 }

// rdpBound bounds the profile of an (alpha_i, eps_i)-RDP mechanism (every
// i, both directions) by the minimum over the orders of the conversion
// the file names, each a theorem for every eps >= 0:
//
//	mironov2017 (Mironov, "Renyi differential privacy", CSF 2017,
//	Proposition 3: (eps_i + log(1/delta)/(alpha-1), delta)-DP):
//	    log delta = (alpha - 1)(eps_i - e);
//	balle2020 (Balle, Barthe, Gaboardi, Hsu and Sato, AISTATS 2020,
//	Theorem 21; Canonne, Kamath and Steinke 2020, Proposition 12):
//	    log delta = (alpha - 1)(eps_i + log(1 - 1/alpha) - e) - log alpha;
//	dp_accounting (Google's compute_delta): the minimum of
//	    log delta = log(1 - e^-eps_i)/2 (Bretagnolle-Huber: TV <=
//	    sqrt(1 - e^-KL), KL <= R_alpha <= eps_i; TV is (0, TV)-DP), and
//	    balle2020's where alpha > 1.01 (dp_accounting's cut-off).
//
// Every line is rounded outward; delta is capped at 1.
func rdpBound(in *certfile.Input) (func(float64) float64, string, error) {
	one := big.NewRat(1, 1)
	cut := new(big.Rat).SetFloat64(1.01) // dp_accounting's a > 1.01, a float
	var lines []logLine
	zero := false // an order with delta 0 at every e
	for i := range in.Orders {
		ar, err := parseRat("order", in.Orders[i])
		if err != nil {
			return nil, "", err
		}
		er, err := parseRat("rdp", in.RDP[i])
		if err != nil {
			return nil, "", err
		}
		if ar.Cmp(one) <= 0 {
			return nil, fmt.Sprintf("order %s is not above 1", in.Orders[i]), nil
		}
		if er.Sign() < 0 {
			return nil, fmt.Sprintf("rdp value %s at order %s is negative", in.RDP[i], in.Orders[i]), nil
		}
		alpha, eps := ratFi(ar), ratFi(er)
		if alpha.hi > maxInputOrder || eps.hi > maxInputOrder {
			continue
		}
		am1 := ratFi(new(big.Rat).Sub(ar, one))
		balle := func() {
			// (alpha-1)(eps + log(1 - 1/alpha)) - log alpha
			b := am1.mul(eps.add(log1mInv(alpha, am1))).sub(alpha.log())
			lines = append(lines, logLine{a: am1.lo, b: b.hi})
		}
		switch in.Conversion {
		case "mironov2017":
			lines = append(lines, logLine{a: am1.lo, b: am1.mul(eps).hi})
		case "balle2020":
			balle()
		case "dp_accounting":
			if er.Sign() == 0 {
				zero = true
				continue
			}
			// log(1 - e^-eps)/2, from above: 1 - e^-eps = -expm1(-eps).
			v := expm1Fi(-eps.hi).neg()
			if v.hi > 0 && v.hi < 1 {
				lines = append(lines, logLine{a: 0, b: up(0.5 * logHi(v.hi))})
			}
			if ar.Cmp(cut) > 0 {
				balle()
			}
		default:
			return nil, "", fmt.Errorf("%w: conversion %q", ErrMalformed, in.Conversion)
		}
	}
	return func(e float64) float64 {
		if zero {
			return 0
		}
		best := 0.0 // log 1
		for _, l := range lines {
			best = min(best, up(l.b-dn(l.a*e)))
		}
		if best >= 0 {
			return 1
		}
		return min(1, expHi(best))
	}, "", nil
}

// log1mInv encloses log(1 - 1/alpha) for alpha > 1 (am1 encloses alpha
// - 1): for alpha >= 2 by the series -sum_k x^k/k, x = 1/alpha <= 1/2,
// whose tail from term K on is at most x^K/(K (1 - x)) <= 2 x^K/K (no
// cancellation, so the enclosure stays tight relative to 1/alpha at
// large alpha); below 2 as log((alpha-1)/alpha).
func log1mInv(alpha, am1 fi) fi {
	if alpha.lo < 2 {
		return am1.div(alpha).log()
	}
	x := pt64(1).div(alpha)
	pow, sum := x, pt64(0)
	for k := 1; ; k++ {
		term := pow.div(pt64(float64(k)))
		if term.hi <= sum.lo*0x1p-64 || k > 200 {
			tail := up(2 * term.hi)
			return fi{dn(-sum.hi - tail), -sum.lo}
		}
		sum = sum.add(term)
		pow = pow.mul(x)
	}
}

// expm1Fi encloses e^y - 1: below |y| = 1/16 by its series sum_{k>=1}
// y^k/k!, whose tail from term K on is at most |y^K/K!|/(1 - |y|) <= 2
// |y^K/K!| (tight relative to y), else from exp's bounds.
func expm1Fi(y float64) fi {
	if math.Abs(y) >= 1.0/16 {
		return fi{dn(expLo(y) - 1), up(expHi(y) - 1)}
	}
	t, s := pt64(y), pt64(y)
	for k := 2; ; k++ {
		t = t.mul(pt64(y)).div(pt64(float64(k)))
		m := max(math.Abs(t.lo), math.Abs(t.hi))
		if m <= 0x1p-64*min(math.Abs(s.lo), math.Abs(s.hi)) || k > 40 {
			r := up(2 * m)
			return fi{dn(s.lo - r), up(s.hi + r)}
		}
		s = s.add(t)
	}
}

// maxInputEps caps |eps| of a points input (the solver's is 700): the
// chords' exponentials stay finite.
const maxInputEps = 1e4

// chords is a profile known by upper bounds at points (certfile.Input,
// mechanism points): eps strictly increasing, delta the running minimum of
// the file's values capped at 1 (a profile is non-increasing, so each is
// still an upper bound).
type chords struct{ eps, delta []float64 }

// chordBound reads the points (eps, delta): their bound, or a rejection
// message (eps not strictly increasing, a delta below 0).
func chordBound(es, ds []string) (func(float64) float64, string, error) {
	c := chords{eps: make([]float64, len(es)), delta: make([]float64, len(ds))}
	if len(es) != len(ds) || len(es) == 0 {
		return nil, "", fmt.Errorf("%w: %d eps and %d delta values", ErrMalformed, len(es), len(ds))
	}
	for i := range es {
		e, err1 := strconv.ParseFloat(es[i], 64)
		d, err2 := strconv.ParseFloat(ds[i], 64)
		if err1 != nil || err2 != nil || math.IsInf(e, 0) || math.IsInf(d, 0) {
			return nil, "", fmt.Errorf("%w: point %d (%q, %q) is not a pair of finite float64", ErrMalformed, i, es[i], ds[i])
		}
		if math.Abs(e) > maxInputEps {
			return nil, fmt.Sprintf("input eps %v is beyond %v", e, maxInputEps), nil
		}
		if i > 0 && !(e > c.eps[i-1]) {
			return nil, fmt.Sprintf("input eps %v does not exceed the previous %v", e, c.eps[i-1]), nil
		}
		if !(d >= 0) {
			return nil, fmt.Sprintf("input delta %v at eps %v is below 0", d, e), nil
		}
		c.eps[i], c.delta[i] = e, min(d, 1)
		if i > 0 {
			c.delta[i] = min(c.delta[i], c.delta[i-1])
		}
	}
	return c.at, "", nil
}

// at returns an upper bound on every profile (convex and non-increasing
// in e^eps, 1 at e^eps = 0) that is at most delta_i at eps_i: the value
// at a point, the chord in e^eps between the neighbouring points, the
// chord from (e^eps = 0, 1) before the first, the last value after the
// last. The chord's weight s = (e^(e-a) - 1)/(e^(b-a) - 1) is taken from
// below (the chord falls in s).
func (c chords) at(e float64) float64 {
	n := len(c.eps)
	i := sort.SearchFloat64s(c.eps, e) // first eps_i >= e
	switch {
	case i == n:
		return c.delta[n-1]
	case c.eps[i] == e:
		return c.delta[i]
	}
	if i == 0 {
		return chordUp(1, c.delta[0], expLo(dn(e-c.eps[0]))) // s = e^e / e^eps_0
	}
	return chordUp(c.delta[i-1], c.delta[i], chordWeight(dn(e-c.eps[i-1]), up(c.eps[i]-c.eps[i-1])))
}

// chordUp returns an upper bound on the chord ya + (yb - ya) s, yb <= ya,
// from a lower bound s on its weight (the chord falls in s), at most ya.
func chordUp(ya, yb, s float64) float64 {
	return min(ya, up(ya-dn(max(0, dn(ya-yb))*s)))
}

// chordWeight returns a lower bound on s = (e^da - 1)/(e^dc - 1) for 0 <=
// da <= dc, dc > 0 (the weight of x = e^(a + da) on the chord from e^a to
// e^(a + dc)), from a lower end of da and an upper end of dc.
func chordWeight(da, dc float64) float64 {
	return max(0, dn(expm1Fi(da).lo/expm1Fi(dc).hi))
}

// hullBounds returns, at the grid points l_i = (lower_loss + i) h of a
// PLD (loss encloses them), upper bounds on a step's profile g and lower
// bounds on 1 - g, from gAt's (the same pair at one point) lowered to
// their running minimum and to their lower convex hull in x = e^l with the
// point (0, 1): every profile is non-increasing and convex in x, 1 at x
// = 0, so a profile below upper bounds at points is below any chord
// between them. This is what the solver's envelope does to a bound that
// is not convex (an RDP curve's minimum over orders, points that are not
// convex, and their amplification). The hull's vertices are chosen in
// plain float64 (any choice is valid); each chord is rounded up.
func hullBounds(n int, h float64, loss func(int) fi, gAt func(int) (float64, float64)) [][2]float64 {
	out := make([][2]float64, n)
	y := make([]float64, n)
	m := 1.0
	for i := range n {
		out[i][0], out[i][1] = gAt(i)
		m = min(m, out[i][0])
		y[i] = m
	}
	x := func(i int) float64 {
		if i < 0 {
			return 0
		}
		return math.Exp(loss(i).lo)
	}
	yv := func(i int) float64 {
		if i < 0 {
			return 1
		}
		return y[i]
	}
	hull := []int{-1} // -1: the point (0, 1)
	for i := range n {
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			if (x(b)-x(a))*(yv(i)-yv(a))-(yv(b)-yv(a))*(x(i)-x(a)) > 0 {
				break // b strictly below the chord a-i: keep it
			}
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, i)
	}
	dist := func(k int) fi { return pt64(float64(k)).mul(pt64(h)) } // l_j - l_a = (j - a) h
	for v := 1; v < len(hull); v++ {
		a, c := hull[v-1], hull[v]
		ya, yc := yv(a), yv(c)
		for j := a + 1; j < c; j++ {
			var s float64
			if a < 0 {
				s = expLo(dist(j - c).lo) // x_j / x_c
			} else {
				s = chordWeight(dist(j-a).lo, dist(c-a).hi)
			}
			y[j] = min(y[j], chordUp(ya, yc, s))
		}
	}
	for i := range out {
		if y[i] < out[i][0] {
			out[i] = [2]float64{y[i], max(out[i][1], dn(1-y[i]))}
		}
	}
	return out
}

// pldBound reads one direction of an input PLD on the step h: an upper
// bound on its profile F(e) = inf + sum_j p_j [1 - e^(e - l_j)]_+ (the
// file's infinity mass as written), or a rejection message (masses
// summing above 1 + 1e-6, as the solver refuses). For j at or
// past the first index i with l_i's upper end above e, p_j [1 - e^(e -
// l_j)]_+ <= p_j (1 - e^(e - hi(l_j))) (the term rises in l), and below it
// the terms are 0, so F(e) <= inf + sum_{j >= i} p_j - e^e sum_{j >= i}
// p_j e^-hi(l_j): suffix sums, as checkProfile's item 2.
func pldBound(d *certfile.PMF, h float64) (func(float64) float64, string, error) {
	p, inf, loss, msg, err := readPMF(d, h)
	if msg != "" || err != nil {
		return nil, prefixed("input: ", msg), err
	}
	sufP, _, sufQlo := suffixSums(p, loss)
	if s := sufP[0].hi(); !(s <= 1+1e-6) {
		return nil, fmt.Sprintf("input: the masses sum to %v, above 1", s), nil // the solver's limit too
	}
	n := len(p)
	return func(e float64) float64 {
		i := sort.Search(n, func(j int) bool { return loss(j).hi > e }) // hi(l_j) rises with j
		if i == n {
			return min(1, inf)
		}
		v := up(up(inf+sufP[i].hi()) - dn(expLo(e)*sufQlo[i].lo()))
		return min(1, max(0, v))
	}, "", nil
}

// readPMF parses one direction's PLD on the step h: the masses, the
// infinity mass, the losses l_i = (lower_loss + i) h (enclosed), or a
// rejection message (losses beyond |700| nats), or ErrMalformed.
func readPMF(d *certfile.PMF, h float64) (p []float64, inf float64, loss func(int) fi, msg string, err error) {
	n := len(d.Probs)
	p = make([]float64, n)
	for i, s := range d.Probs {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 1) {
			return nil, 0, nil, "", fmt.Errorf("%w: mass %d is %q", ErrMalformed, i, s)
		}
		p[i] = v
	}
	inf, err = strconv.ParseFloat(d.InfinityMass, 64)
	if err != nil || !(inf >= 0) {
		return nil, 0, nil, "", fmt.Errorf("%w: infinity mass %q", ErrMalformed, d.InfinityMass)
	}
	loss = func(i int) fi { return pt64(float64(d.LowerLoss + i)).mul(pt64(h)) }
	if lmax := loss(n - 1).hi; math.Abs(loss(0).lo) > 700 || lmax > 700 {
		return nil, 0, nil, fmt.Sprintf("losses reach beyond |700| nats (%v to %v)", loss(0).lo, lmax), nil
	}
	return p, inf, loss, "", nil
}

// suffixSums returns, for i = 0..n, the sums over j >= i of p_j, and of
// p_j e^-l_j from above (e^-lo(l_j)) and below (e^-hi(l_j)).
func suffixSums(p []float64, loss func(int) fi) (sufP, sufQhi, sufQlo []dd) {
	n := len(p)
	sufP, sufQhi, sufQlo = make([]dd, n+1), make([]dd, n+1), make([]dd, n+1)
	for i := n - 1; i >= 0; i-- {
		l := loss(i)
		sufP[i], sufQhi[i], sufQlo[i] = sufP[i+1], sufQhi[i+1], sufQlo[i+1]
		sufP[i].add(p[i])
		sufQhi[i].add(up(p[i] * expHi(-l.lo)))
		sufQlo[i].add(dn(p[i] * expLo(-l.hi)))
	}
	return sufP, sufQhi, sufQlo
}
