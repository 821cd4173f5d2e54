package pld

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/bernamp/bernamp/hockey"
	"github.com/bernamp/bernamp/parallel"
)

// PLD is a privacy loss distribution on the grid of losses i H (nats):
// mass Probs[j] on the loss (Lo + j) H and Inf on +infinity. Its profile
// is
//
//	delta(eps) = Inf + sum_j Probs[j] [1 - e^(eps - (Lo+j) H)]_+ .
//
// A pessimistic PLD's profile lies above the mechanism's (Discretize,
// Compose); an optimistic one's below it, up to Slack: mass of at most
// Slack may sit above its true loss (the wrap-around of a truncated FFT),
// and Delta subtracts it.
type PLD struct {
	H           float64
	Lo          int
	Probs       []float64
	Inf         float64
	Pessimistic bool
	Slack       float64
}

// Loss returns the loss of Probs[j], nats.
func (d *PLD) Loss(j int) float64 { return float64(d.Lo+j) * d.H }

// Delta returns the profile at eps (the type's doc): an upper bound on
// the mechanism's for a pessimistic PLD, a lower bound for an optimistic
// one (rounding of the sum aside: a few ulps of Inf + sum Probs).
func (d *PLD) Delta(eps float64) float64 {
	s := 0.0
	for j := len(d.Probs) - 1; j >= 0; j-- {
		l := d.Loss(j)
		if l <= eps {
			break
		}
		s += -math.Expm1(eps-l) * d.Probs[j]
	}
	v := d.Inf + s
	if !d.Pessimistic {
		return math.Max(0, v-d.Slack)
	}
	return math.Min(1, v*(1+float64(len(d.Probs)+4)*ulp))
}

// Eps returns the smallest eps >= 0 with Delta(eps) <= delta, +Inf when
// none is finite (Inf > delta): dp_accounting's get_epsilon_for_delta,
// walking down from the largest loss. A pessimistic PLD's answer is rounded
// up (8 ulps and the summation's error folded into delta).
func (d *PLD) Eps(delta float64) float64 {
	target := delta
	if d.Pessimistic {
		target = delta / (1 + float64(len(d.Probs)+4)*ulp)
	} else {
		target = delta + d.Slack
	}
	if d.Inf > target {
		return math.Inf(1)
	}
	upper, lower := d.Inf, 0.0 // mass above and sum of mass e^-loss above
	res := math.NaN()
	for j := len(d.Probs) - 1; j >= 0; j-- {
		l := d.Loss(j)
		if upper > target && lower > 0 && math.Log((upper-target)/lower) >= l {
			break
		}
		upper += d.Probs[j]
		lower += math.Exp(-l) * d.Probs[j]
		if upper >= target && lower == 0 {
			res = math.Max(0, l)
			break
		}
	}
	if math.IsNaN(res) {
		if upper <= lower+target {
			return 0
		}
		res = math.Log((upper - target) / lower)
	}
	if d.Pessimistic && res > 0 {
		res = math.Nextafter(res*(1+8*ulp), math.Inf(1))
	}
	return math.Max(0, res)
}

// Grid bounds the losses a profile's PLD keeps: Discretize stops the grid
// where the profile falls below Tail (the rest goes to the infinity mass,
// pessimistically) and never beyond MaxEps.
type Grid struct {
	H    float64 // the discretization interval, nats (dp_accounting's value_discretization_interval)
	Tail float64 // profile value at which the grid stops, in (0, 1)
}

// Check returns an error unless 0 < H <= 1 and 0 < Tail < 1, and the grid
// has at most MaxPoints points.
func (g Grid) Check() error {
	if !(g.H > 0 && g.H <= 1) {
		return fmt.Errorf("pld: discretization is %v, must be in (0, 1]", g.H)
	}
	if !(g.Tail > 0 && g.Tail < 1) {
		return fmt.Errorf("pld: tail is %v, must be in (0, 1)", g.Tail)
	}
	return nil
}

// MaxPoints bounds the points of a PLD and of an FFT (8 bytes each, and
// 16 for the FFT's coefficients).
const MaxPoints = 1 << 25

// MaxGrid bounds the points of one discretized profile (Discretize).
const MaxGrid = 1 << 22

// reach returns the smallest grid eps >= 0 (a multiple of h) at which f
// <= tail, by bisection on the non-increasing f, capped at MaxEps and at
// upper (where f is 0).
func reach(f func(float64) float64, h, tail, upper float64) int {
	top := int(math.Ceil(math.Min(MaxEps, upper) / h))
	if f(float64(top)*h) > tail {
		return top
	}
	lo, hi := -1, top // f(lo h) > tail (lo = -1: by convention), f(hi h) <= tail
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if f(float64(mid)*h) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// Discretize returns the pessimistic connect-the-dots PLD of the forward
// direction of p (Doroshenko et al., PETS 2022, Algorithm 1, as
// dp_accounting's create_pmf_pessimistic_connect_dots): the profile,
// rounded up, on the grid i g.H from where the reverse direction falls
// below g.Tail to where the forward one does, made a valid profile by
// hockey.Envelope (monotone, convex in e^eps) and turned into masses by
// hockey.ConnectDots. Its profile is above p's at every eps. The grid's
// values are computed on workers goroutines in fixed chunks: the result
// does not depend on workers. Errors: an invalid grid, more than MaxPoints
// points, ctx.Err().
func Discretize(ctx context.Context, p Profile, g Grid, workers int) (*PLD, error) {
	if err := g.Check(); err != nil {
		return nil, err
	}
	rev := p.Forward
	if p.Reverse != nil {
		rev = p.Reverse
	}
	hi := reach(p.Forward, g.H, g.Tail, p.Upper)
	lo := -reach(rev, g.H, g.Tail, p.Upper)
	// A grid may stop anywhere: the connect-the-dots PLD puts the profile's
	// last value at infinity, a constant above the profile beyond. Profiles
	// that stay above Tail for long (a flat (eps, delta) pair amplified at
	// large n) are cut at MaxGrid points, half each side at most.
	if hi-lo+1 > MaxGrid {
		lo = max(lo, -MaxGrid/2)
		hi = min(hi, lo+MaxGrid-1)
	}
	n := hi - lo + 1
	eps := make([]float64, n)
	for i := range eps {
		eps[i] = float64(lo+i) * g.H
	}
	deltas := make([]float64, n)
	const chunk = 1 << 14
	work := func(_ context.Context, c int) ([]float64, error) {
		out := make([]float64, 0, chunk)
		for _, e := range eps[c*chunk : min(n, (c+1)*chunk)] {
			out = append(out, p.Delta(e))
		}
		return out, nil
	}
	emit := func(c int, v []float64) error { copy(deltas[c*chunk:], v); return nil }
	if err := parallel.Map(ctx, (n+chunk-1)/chunk, workers, work, emit); err != nil {
		return nil, err
	}
	env := hockey.Envelope(eps, deltas)
	probs, inf := hockey.ConnectDots(eps, env)
	inf = repair(eps, env, probs, inf)
	return &PLD{H: g.H, Lo: lo, Probs: probs, Inf: math.Min(1, inf), Pessimistic: true}, nil
}

// repair adds mass where the rounding of ConnectDots left the PLD's
// profile below env at a grid point, so that it is above env at every
// point: walking down from the largest loss, the profile at eps[j] is
// sum over higher losses of probs[i] (1 - e^(eps[j] - eps[i])) plus inf
// (computed as dp_accounting does, from the mass above and the mass times
// e^-loss above, the difference lowered by 8 ulps of its terms); a shortfall s at eps[j] gets mass
// s/(1 - e^(eps[j] - eps[j+1])) at eps[j+1] (at infinity for the last
// point), which raises the profile by s at eps[j] and by more below it.
// The corrections are rounding-sized: they matter only where the answer
// is asked at a delta near 1e-16 of the profile's values. It returns the
// new infinity mass.
func repair(eps, env, probs []float64, inf float64) float64 {
	n := len(eps)
	if s := env[n-1] - inf; s > 0 {
		inf += s * (1 + 4*ulp)
	}
	up, low := inf, 0.0 // mass above eps[j], and sum of mass e^-loss above
	for j := n - 2; j >= 0; j-- {
		up += probs[j+1]
		low += probs[j+1] * math.Exp(-eps[j+1])
		e := math.Exp(eps[j]) * low
		d := up - e - 8*ulp*(up+e) // the difference's rounding, taken against us
		if s := env[j] - d; s > 0 {
			m := s / -math.Expm1(eps[j]-eps[j+1]) * (1 + 8*ulp)
			probs[j+1] += m
			up += m
			low += m * math.Exp(-eps[j+1])
		}
	}
	return inf
}

// ffts keeps gonum's FFT plans by length (their twiddle tables cost about a
// tenth of a transform), a pool per length since a plan is not safe for
// concurrent use.
var ffts sync.Map // int -> *sync.Pool of *fourier.FFT

func getFFT(n int) *fourier.FFT {
	p, _ := ffts.LoadOrStore(n, &sync.Pool{New: func() any { return fourier.NewFFT(n) }})
	return p.(*sync.Pool).Get().(*fourier.FFT)
}

func putFFT(f *fourier.FFT) {
	if p, ok := ffts.Load(f.Len()); ok {
		p.(*sync.Pool).Put(f)
	}
}

// fastLen returns the smallest 2^a 3^b 5^c >= n that gonum's FFT (a port
// of FFTPACK) handles at full speed: FFTPACK factors n into 4s, 2s, 3s and
// 5s and keeps at most 13 of them (its factor table has 15 slots, two for n
// and the count); 12 leaves a margin.
func fastLen(n int) int {
	best := math.MaxInt
	for a, p2 := 0, 1; p2 < 2*n; a, p2 = a+1, p2*2 {
		for b, p3 := 0, p2; p3 < 2*n; b, p3 = b+1, p3*3 {
			for c, p5 := 0, p3; p5 < 2*n; c, p5 = c+1, p5*5 {
				if p5 >= n && p5 < best && a/2+a%2+b+c <= 12 {
					best = p5
				}
			}
		}
	}
	return best
}

// selfConvolveBounds returns the range [lo, hi] of indices of the T-fold
// self-convolution of probs outside of which the mass is at most tail,
// from Chernoff bounds at dp_accounting's orders (+-1..20)/len
// (common.compute_self_convolve_bounds).
func selfConvolveBounds(probs []float64, t int, tail float64) (lo, hi int) {
	n := len(probs)
	lo, hi = 0, (n-1)*t
	for k := -20; k <= 20; k++ {
		if k == 0 {
			continue
		}
		order := float64(k) / float64(n)
		// log sum_i probs[i] e^(i order), by the largest term.
		m := math.Inf(-1)
		for i, p := range probs {
			if p > 0 {
				m = math.Max(m, float64(i)*order)
			}
		}
		s := 0.0
		for i, p := range probs {
			if p > 0 {
				s += p * math.Exp(float64(i)*order-m)
			}
		}
		b := (float64(t)*(m+math.Log(s)) + math.Log(2/tail)) / order
		if math.IsNaN(b) || math.IsInf(b, 0) {
			continue
		}
		if order > 0 && b < float64(hi) {
			hi = int(math.Ceil(b))
		}
		if order < 0 && b > float64(lo) {
			lo = int(math.Floor(b))
		}
	}
	return max(lo, 0), min(hi, (n-1)*t)
}

// SelfCompose returns the PLD of t adaptive compositions of d, by FFT
// (gonum's dsp/fourier) as dp_accounting's self_compose: the output range
// is cut where Chernoff bounds leave at most tail of mass outside, which a
// pessimistic PLD adds to its infinity mass (and an optimistic one to its
// Slack); rounding residues below 0 are clipped (raising the profile of a
// pessimistic PLD, lowering nothing). Errors: t < 1, tail outside (0, 1),
// an output over MaxPoints.
func (d *PLD) SelfCompose(t int, tail float64) (*PLD, error) {
	if t < 1 {
		return nil, fmt.Errorf("pld: steps is %d, must be >= 1", t)
	}
	if !(tail > 0 && tail < 1) {
		return nil, fmt.Errorf("pld: tail is %v, must be in (0, 1)", tail)
	}
	if t == 1 {
		c := *d
		c.Probs = append([]float64(nil), d.Probs...)
		return &c, nil
	}
	lo, hi := selfConvolveBounds(d.Probs, t, tail)
	if lo > hi { // bounds crossed by rounding: keep the whole range
		lo, hi = 0, (len(d.Probs)-1)*t
	}
	outLen := hi - lo + 1
	L := MaxPoints + 1
	if outLen <= MaxPoints {
		L = fastLen(max(outLen, len(d.Probs)))
	}
	if L > MaxPoints {
		return nil, fmt.Errorf("pld: %d compositions need %d points (at most %d; use a coarser discretization): %w", t, L, MaxPoints, ErrTooLarge)
	}
	seq := make([]float64, L)
	copy(seq, d.Probs)
	fft := getFFT(L)
	defer putFFT(fft)
	coef := fft.Coefficients(nil, seq)
	for i, z := range coef {
		coef[i] = cpow(z, t)
	}
	out := fft.Sequence(seq, coef)
	probs := make([]float64, outLen)
	for i := range probs {
		v := out[(lo+i)%L] / float64(L)
		probs[i] = math.Max(0, v)
	}
	inf := -math.Expm1(float64(t) * math.Log1p(-d.Inf))
	c := &PLD{H: d.H, Lo: d.Lo*t + lo, Probs: probs, Inf: inf, Pessimistic: d.Pessimistic, Slack: d.Slack * float64(t)}
	if d.Pessimistic {
		c.Inf = math.Min(1, c.Inf+tail)
	} else {
		c.Slack += tail
	}
	return c, nil
}

// cpow returns z^t by repeated squaring.
func cpow(z complex128, t int) complex128 {
	r := complex(1, 0)
	for ; t > 0; t >>= 1 {
		if t&1 == 1 {
			r *= z
		}
		z *= z
	}
	if cmplx.IsNaN(r) {
		return 0
	}
	return r
}

// Compose returns the PLD of the composition of a and b (same H and side),
// by FFT, with tails of at most tail/2 cut on each side as dp_accounting's
// compose: a pessimistic PLD moves the low tail onto its lowest kept loss
// and the high tail to infinity; an optimistic one moves the high tail onto
// its highest kept loss and drops the low one.
func Compose(a, b *PLD, tail float64) (*PLD, error) {
	if a.H != b.H || a.Pessimistic != b.Pessimistic {
		return nil, fmt.Errorf("pld: Compose: discretizations %v and %v, or sides, differ", a.H, b.H)
	}
	n := len(a.Probs) + len(b.Probs) - 1
	L := fastLen(n)
	if L > MaxPoints {
		return nil, fmt.Errorf("pld: the composition needs %d points (at most %d; use a coarser discretization): %w", L, MaxPoints, ErrTooLarge)
	}
	fft := getFFT(L)
	defer putFFT(fft)
	sa := make([]float64, L)
	copy(sa, a.Probs)
	ca := fft.Coefficients(nil, sa)
	sb := make([]float64, L)
	copy(sb, b.Probs)
	cb := fft.Coefficients(nil, sb)
	for i := range ca {
		ca[i] *= cb[i]
	}
	out := fft.Sequence(sa, ca)
	probs := make([]float64, n)
	for i := range probs {
		probs[i] = math.Max(0, out[i]/float64(L))
	}
	// Truncate each tail to at most tail/2.
	left := 0
	for s := 0.0; left < n-1 && s+probs[left] <= tail/2; left++ {
		s += probs[left]
	}
	right := n
	for s := 0.0; right-1 > left && s+probs[right-1] <= tail/2; right-- {
		s += probs[right-1]
	}
	lm, rm := 0.0, 0.0
	for _, v := range probs[:left] {
		lm += v
	}
	for _, v := range probs[right:] {
		rm += v
	}
	kept := append([]float64(nil), probs[left:right]...)
	c := &PLD{H: a.H, Lo: a.Lo + b.Lo + left, Probs: kept, Inf: a.Inf + b.Inf - a.Inf*b.Inf,
		Pessimistic: a.Pessimistic, Slack: a.Slack + b.Slack}
	if a.Pessimistic {
		kept[0] += lm
		c.Inf = math.Min(1, c.Inf+rm)
	} else {
		kept[len(kept)-1] += rm
	}
	return c, nil
}
