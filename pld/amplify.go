package pld

import (
	"fmt"
	"math"

	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/logspace"
)

// MaxN is the largest n = d k that Amplify accepts: its binomial window
// (about 75 standard deviations) then holds at most about 2.4 million
// terms.
const MaxN = 1_000_000_000

// windowNats is how far below the binomial's largest log-probability
// (above e^-11 for n <= MaxN) the window reaches: every term inside is a
// normal float64, and the mass outside is bounded from the log-concavity
// of the pmf (binomial.outL, outR).
const windowNats = 690

// binomial holds Binomial(n, c) on the window [lo, hi] around its mode:
// prefix sums P_j = sum_{lo <= i <= j} pmf(i) and suffix sums S_j =
// sum_{j <= i <= hi} pmf(i), so that both tails are known to relative
// accuracy.
type binomial struct {
	n, lo, hi int
	pre, suf  []float64
	// preErr and sufErr bound the absolute errors of pre and suf: each
	// pmf is within 16 ulps of its log-probability's size plus one
	// (Loader's expansion: a few ulps of it; then exp), and each addition
	// within an ulp of the sum so far.
	preErr, sufErr []float64
	// outL and outR bound the mass below lo and above hi: for a
	// log-concave pmf the ratio of successive terms only falls going
	// outward, so each tail is at most its first term over 1 - r, r the
	// ratio of that term to the window's edge term.
	outL, outR float64
}

func newBinomial(n int, c float64) *binomial {
	q := 1 - c // exact for c in (0, 1/2) (Sterbenz)
	mode := int(math.Floor(float64(n+1) * c))
	lm := logspace.BinomPMF(mode, n, c, q)
	lo, hi := mode, mode
	for lo > 0 && logspace.BinomPMF(lo-1, n, c, q) >= lm-windowNats {
		lo--
	}
	for hi < n && logspace.BinomPMF(hi+1, n, c, q) >= lm-windowNats {
		hi++
	}
	size := hi - lo + 1
	b := &binomial{n: n, lo: lo, hi: hi, pre: make([]float64, size), suf: make([]float64, size),
		preErr: make([]float64, size), sufErr: make([]float64, size)}
	tail := func(edge, next int) float64 {
		if next < 0 || next > n {
			return 0
		}
		le, ln := logspace.BinomPMF(edge, n, c, q), logspace.BinomPMF(next, n, c, q)
		return math.Exp(ln-logspace.OneMinusExp(ln-le)) * (1 + 1e-6)
	}
	b.outL, b.outR = tail(lo, lo-1), tail(hi, hi+1)
	pmf := make([]float64, size)
	perr := make([]float64, size)
	for j := range pmf {
		l := logspace.BinomPMF(lo+j, n, c, q)
		pmf[j] = math.Exp(l)
		perr[j] = 16 * ulp * (math.Abs(l) + 1) * pmf[j]
	}
	s, e := 0.0, 0.0
	for j, v := range pmf {
		s += v
		e += perr[j] + ulp*s
		b.pre[j], b.preErr[j] = s, e
	}
	s, e = 0, 0
	for j := size - 1; j >= 0; j-- {
		s += pmf[j]
		e += perr[j] + ulp*s
		b.suf[j], b.sufErr[j] = s, e
	}
	return b
}

// cdfUp returns an upper bound on P(X <= t).
func (b *binomial) cdfUp(t int) float64 {
	switch {
	case t < 0:
		return 0
	case t < b.lo:
		return math.Min(1, b.outL)
	case t >= b.hi:
		return 1
	}
	i := t - b.lo
	return math.Min(1, b.pre[i]+b.preErr[i]+b.outL)
}

// survLow returns a lower bound on P(X >= j).
func (b *binomial) survLow(j int) float64 {
	switch {
	case j <= 0:
		return 1
	case j > b.hi:
		return 0
	case j <= b.lo:
		return math.Max(0, b.suf[0]-b.sufErr[0])
	}
	i := j - b.lo
	return math.Max(0, b.suf[i]-b.sufErr[i])
}

// Amplify returns the exact profile of the release of n = d k Bernoulli
// samples of a parameter theta in [c, 1-c]^d computed by a mechanism with
// profile p, over the whole box (docs/compose.md, theorem): for eps' >= 0,
// g = e^eps', delta = p's profile at eps',
//
//	delta'(eps') = max_t [ M_t delta - m_t (delta + g - 1) ]_+ ,
//	M_t = P(Binomial(n, c) <= t),  m_t = P(Binomial(n, 1-c) <= t),
//
// the maximum at the largest t with ((1-c)/c)^(n-2t) > (delta + g - 1)/delta.
// The reverse direction is the same formula on p's reverse profile. Each
// value is an upper bound: delta is p's (an upper bound, and the formula
// increases in it), M_t is rounded up and m_t down (window sums with their
// error bound), the difference padded by 4 ulps of its terms, and t* and its
// two neighbours are all evaluated; it is capped at delta (post-processing). The NP tests of the result are nil: the
// mechanism attaining delta' changes with eps' (the lower side, attaining, gives the one
// at a level). It returns an error unless 1 <= n <= MaxN and c is in (0, 1/2).
func Amplify(p Profile, n int, c float64) (Profile, error) {
	if n < 1 || n > MaxN {
		return Profile{}, fmt.Errorf("pld.Amplify: n = d k is %d, must be in [1, %d]", n, MaxN)
	}
	if err := check.C(c); err != nil {
		return Profile{}, fmt.Errorf("pld.Amplify: %w", err)
	}
	b := newBinomial(n, c)
	rho := math.Log1p(-c) - math.Log(c) // log((1-c)/c) > 0
	amp := func(dm func(float64) float64) func(float64) float64 {
		return func(eps float64) float64 { return b.amplified(dm(eps), eps, rho) }
	}
	// delta' is 0 from n rho on (t* < 0), and beyond p.Upper when p is 0
	// there; where p is a positive constant, delta' still falls.
	upper := float64(n) * rho * (1 + 8*ulp)
	if p.Upper < upper && p.both(p.Upper) == 0 {
		upper = p.Upper
	}
	out := Profile{Name: fmt.Sprintf("%s, %d Bernoulli samples at c=%v", p.Name, n, c), Forward: amp(p.Forward), Upper: upper}
	if p.Reverse != nil {
		out.Reverse = amp(p.Reverse)
	}
	return out, nil
}

// amplified returns the theorem's value at one eps' >= 0 for an input
// profile value delta.
func (b *binomial) amplified(delta, eps, rho float64) float64 {
	if !(delta > 0) {
		return 0
	}
	gm1 := math.Expm1(eps)
	// t* = ceil((n - lambda/rho)/2) - 1, lambda = log((delta + g - 1)/delta).
	lambda := math.Log1p(gm1 / delta)
	x := (float64(b.n) - lambda/rho) / 2
	var ts int
	switch {
	case x > float64(b.n)+1:
		ts = b.n
	case x < 0:
		ts = -1
	default:
		ts = int(math.Ceil(x)) - 1
	}
	best := 0.0
	for t := ts - 1; t <= ts+1; t++ {
		if t < 0 || t > b.n {
			continue
		}
		M := b.cdfUp(t)
		m := b.survLow(b.n - t) // P(Binomial(n, 1-c) <= t) = P(Binomial(n, c) >= n - t)
		w := delta + gm1
		v := M*delta - m*w
		v += 4 * ulp * (M*delta + m*w)
		best = math.Max(best, v)
	}
	if best <= 0 {
		return 0
	}
	// Post-processing never raises a profile: delta' <= delta (every
	// term is at most M_t delta <= delta), which also absorbs the padding
	// where no amplification is left.
	return math.Min(delta, math.Nextafter(best, math.Inf(1)))
}
