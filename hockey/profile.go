package hockey

import (
	"context"
	"fmt"
	"math"
	"time"
)

// MethodLifted: k >= 2, Upper is the exact k = 1 corner program at
// dimension D K (the lifting lemma of docs/engine.md: B_k on [c, 1-c]^D is a
// garbling of B_1 on the corners of the (D K)-cube, so every feasible pair
// at (D, K) has one at (D K, 1) with the same amplified divergence): a
// proved upper bound on delta' for every eps'.
const MethodLifted = "lifted-canonical-pair"

// MaxProfileWork is the largest number of (output, eps') terms, Work times
// the number of eps' values, that Profile accepts: each term is about 8
// float operations (measured: about 3 s for 2^30 on this machine).
const MaxProfileWork = 1 << 32

// maxLiftDim is a dimension beyond which the k = 1 program exceeds MaxWork
// (Work(14, 1) > MaxWork already).
const maxLiftDim = 16

// MaxProfileEps bounds |eps'| in Profile, so that e^eps' and e^-eps' are
// finite and normal.
const MaxProfileEps = 700

// ProfileResult is the amplified privacy profile eps' -> delta'(eps') of
// an instance on a grid of eps' values.
type ProfileResult struct {
	Params // EpsOut is not used (0)
	// Method is MethodExact (K = 1: Upper bounds delta'), MethodLifted (K
	// >= 2: Upper bounds delta', from the k = 1 program at D K),
	// MethodPieces (K >= 2 beyond the lift: Upper bounds delta', from
	// PiecesUpper) or MethodCorners (K >= 2, D K > MaxPiecesN: Upper bounds
	// the corner program; that it bounds delta' rests on the conjecture of
	// the package doc).
	Method string
	EpsOut []float64 // the eps' values, nats, as given (negative allowed)
	// Lower[i] is a verified lower bound on delta'(EpsOut[i]) (the corner
	// program at (D, K), whose witness is a real mechanism); Upper[i] is
	// the upper bound of Method. Both under the rounding model of the
	// package doc; Lower[i] <= Upper[i].
	Lower, Upper []float64
	Outputs      int     // outputs evaluated, summed over the programs
	Seconds      float64 // wall time
}

// ProfileWork returns the number of (output, eps') terms Profile evaluates
// for (d, k) and n values of eps', saturated at MaxProfileWork+1, and
// whether the lift is used (k >= 2 and the k = 1 program at d k fits).
func ProfileWork(d, k, n int) (work int, lifted bool) {
	sat := func(w int) int {
		if w > MaxWork || n > MaxProfileWork/max(w, 1) {
			return MaxProfileWork + 1
		}
		return w * n
	}
	w := sat(Work(d, k))
	if k == 1 || w > MaxProfileWork {
		return w, false
	}
	if d*k > maxLiftDim { // Work(d k, 1) > MaxWork beyond it (corner.Configs(d k) would be huge)
		return w, false
	}
	if wl := sat(Work(d*k, 1)); wl <= MaxProfileWork-w {
		return w + wl, true
	}
	return w, false
}

// Profile returns delta'(eps') of the instance p (p.EpsOut is not used) at
// every eps' of epsOuts, finite reals in any order; a negative eps' is the
// hockey-stick divergence at level e^eps' < 1, which the accountants' PLD
// needs. The pair set is closed under swapping P and Q, so each value
// bounds both H(B_k P || B_k Q) and H(B_k Q || B_k P), and
//
//	delta'(-t) = 1 - e^-t + e^-t delta'(t),  t >= 0
//
// holds for the exact profile (H_g(u||v) = 1 - g + g H_{1/g}(v||u)). For
// K >= 2 Profile uses the lift when ProfileWork says it fits (MethodLifted,
// proved), else the pieces bound (MethodPieces, proved) up to D K =
// MaxPiecesN, else the corner program (MethodCorners). Each configuration's
// output distributions are computed once for all eps', and the values
// equal Delta's at every eps' >= 0 bit for bit. Errors: invalid p or eps',
// ErrTooLarge (wrapped) beyond MaxProfileWork, ctx.Err().
func Profile(ctx context.Context, p Params, epsOuts []float64) (*ProfileResult, error) {
	start := time.Now()
	p.EpsOut = 0
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("hockey.Profile: %w", err)
	}
	gs := make([]float64, len(epsOuts))
	for i, e := range epsOuts {
		if !(math.Abs(e) <= MaxProfileEps) {
			return nil, fmt.Errorf("hockey.Profile: eps_out is %v, must be in [-%v, %v]", e, MaxProfileEps, MaxProfileEps)
		}
		gs[i] = math.Exp(e)
	}
	w, lifted := ProfileWork(p.D, p.K, len(epsOuts))
	if w > MaxProfileWork {
		return nil, fmt.Errorf("hockey.Profile: d=%d k=%d at %d eps' values needs more than %d terms: %w",
			p.D, p.K, len(epsOuts), MaxProfileWork, ErrTooLarge)
	}
	pt, qt := Canonical(p.Eps, p.Delta)
	sw, err := sweep(ctx, p.D, p.K, p.C, pt, qt, gs)
	if err != nil {
		return nil, err
	}
	r := &ProfileResult{Params: p, Method: method(p.K), EpsOut: append([]float64(nil), epsOuts...),
		Lower: sw.lower, Upper: sw.upper, Outputs: sw.outputs}
	if lifted {
		sl, err := sweep(ctx, p.D*p.K, 1, p.C, pt, qt, gs)
		if err != nil {
			return nil, err
		}
		r.Method, r.Upper = MethodLifted, sl.upper
		r.Outputs += sl.outputs
	} else if p.K > 1 {
		if pp := newPieces(p); pp != nil {
			up := make([]float64, len(gs))
			for i, g := range gs {
				if up[i], err = pp.upper(ctx, g); err != nil {
					return nil, err
				}
			}
			r.Method, r.Upper = MethodPieces, up
		}
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// Envelope returns a valid privacy profile from upper bounds upper[i] >=
// delta(eps[i]) of a profile delta (eps strictly increasing): values
// env[i] with delta(eps[i]) <= env[i] <= upper[i] that are non-increasing
// in eps and convex in x = e^eps together with the point (x, delta) = (0,
// 1), as the accountants' connect-the-dots construction needs (a non-convex
// input gives it negative masses, which it clips).
//
// Why they are still upper bounds: every profile delta(x) = H_x(P||Q) is
// non-increasing and convex in x >= 0 with delta(0) = 1, so delta(eps[i])
// <= min_{j <= i} upper[j], and a convex function below a set of points is
// below their lower convex hull. Values off the hull's vertices are the
// chord, rounded up (its error bounded from the expm1 of eps differences),
// never above upper[i]. It panics unless len(eps) == len(upper) and eps is
// strictly increasing and finite.
func Envelope(eps, upper []float64) []float64 {
	n := len(eps)
	if len(upper) != n {
		panic("hockey: Envelope: length mismatch")
	}
	for i, e := range eps {
		if math.IsNaN(e) || math.IsInf(e, 0) || (i > 0 && !(e > eps[i-1])) {
			panic("hockey: Envelope: eps not strictly increasing and finite")
		}
	}
	env := make([]float64, n)
	m := 1.0
	for i, u := range upper {
		m = math.Min(m, u)
		env[i] = m
	}
	// Lower hull (monotone chain) of (0, 1), (x_i, env_i); index -1 is the
	// anchor. A point is dropped when it is on or above the chord of its
	// neighbours; the float test only picks the vertices, the values below
	// are bounded rigorously whatever it picks.
	x := func(i int) float64 {
		if i < 0 {
			return 0
		}
		return math.Exp(eps[i])
	}
	y := func(i int) float64 {
		if i < 0 {
			return 1
		}
		return env[i]
	}
	hull := []int{-1}
	for i := range n {
		for len(hull) >= 2 {
			a, b := hull[len(hull)-2], hull[len(hull)-1]
			if (x(b)-x(a))*(y(i)-y(a))-(y(b)-y(a))*(x(i)-x(a)) > 0 {
				break // b strictly below the chord a-i: keep
			}
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, i)
	}
	out := append([]float64(nil), env...)
	for h := 1; h < len(hull); h++ {
		a, c := hull[h-1], hull[h]
		for j := a + 1; j < c; j++ {
			// chord at x_j: y_a + (y_c - y_a) s, s = (x_j - x_a)/(x_c - x_a),
			// in [0, 1]; s within 16 ulps from expm1 (or x_j/x_c when a is
			// the anchor), so the chord within 16 ulps of |y_a - y_c| plus
			// 4 ulps of its size.
			var s float64
			if a < 0 {
				s = math.Exp(eps[j] - eps[c])
			} else {
				s = math.Expm1(eps[j]-eps[a]) / math.Expm1(eps[c]-eps[a])
			}
			ya, yc := y(a), y(c)
			v := ya + (yc-ya)*s
			v += 16*ulp*math.Abs(ya-yc) + 4*ulp*v
			if v < out[j] {
				out[j] = math.Nextafter(v, math.Inf(1))
			}
		}
	}
	// The chord bound is non-increasing up to its pad; restore the order
	// without raising any value above a valid one.
	for i := 1; i < n; i++ {
		out[i] = math.Min(out[i], out[i-1])
	}
	return out
}

// ConnectDots returns the pessimistic connect-the-dots privacy loss
// distribution of a profile given at eps[0] < ... < eps[n-1] (Doroshenko,
// Ghazi, Kamath, Kumar and Manurangsi, "Connect the dots: tighter discrete
// approximations of privacy loss distributions", PETS 2022, Algorithm 1;
// dp_accounting's pld_pmf.create_pmf_pessimistic_connect_dots): mass
// probs[i] on the privacy loss eps[i] and inf = deltas[n-1] on +infinity,
//
//	probs[i] = (deltas[i] - deltas[i-1]) / (e^(eps[i-1] - eps[i]) - 1)
//	         + (deltas[i+1] - deltas[i]) / (e^(eps[i+1] - eps[i]) - 1),
//
// with deltas[-1] = 1 at eps[-1] = -infinity and no second term at i = n-1.
// Its profile is the chord interpolation of deltas in e^eps, flat at
// deltas[n-1] beyond eps[n-1]: above every convex profile through the
// points. Computed in float64 as dp_accounting does, negative rounding
// residues clipped to 0: that only adds mass at finite losses, which raises
// inf + sum_{eps[i] > t} probs[i] (1 - e^(t - eps[i])) at every t (the
// pessimistic side); sum(probs) + inf then exceeds 1 by the clipped amount
// (about 1e-13 per grid point at steps near 1e-3). It panics on length mismatch, empty input or eps
// not strictly increasing.
func ConnectDots(eps, deltas []float64) (probs []float64, inf float64) {
	n := len(eps)
	if n == 0 || len(deltas) != n {
		panic("hockey: ConnectDots: empty or length mismatch")
	}
	probs = make([]float64, n)
	probs[0] = 1 - deltas[0]
	for i := 1; i < n; i++ {
		if !(eps[i] > eps[i-1]) {
			panic("hockey: ConnectDots: eps not strictly increasing")
		}
		dd := deltas[i] - deltas[i-1]
		probs[i] += dd / math.Expm1(eps[i-1]-eps[i])
		probs[i-1] += dd / math.Expm1(eps[i]-eps[i-1])
	}
	for i, p := range probs {
		probs[i] = math.Max(0, p)
	}
	return probs, deltas[n-1]
}
