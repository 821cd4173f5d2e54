// Package hockey computes the exact amplified (eps', delta')-DP guarantee of
// Bernoulli sampling through the hockey-stick divergence: a mechanism that
// is (eps, delta)-DP and releases theta in [c, 1-c]^d, followed by k
// Bernoulli(theta_l) samples per coordinate (the channel B_k), is (eps',
// delta')-DP with
//
//	delta'(eps') = sup { H_{e^eps'}(B_k(P) || B_k(Q)) :
//	                     H_{e^eps}(P||Q) <= delta, H_{e^eps}(Q||P) <= delta },
//	H_g(u||v) = sum_b [u_b - g v_b]_+ = max_S (u(S) - g v(S)),
//
// and no smaller delta' holds for every such mechanism (a mechanism that
// releases P on one dataset and Q on its neighbour attains the supremum).
// All levels are in nats; delta is a probability.
//
// # The canonical pair (why no linear program is needed)
//
// Every pair (P, Q) with H_{e^eps}(P||Q) <= delta and H_{e^eps}(Q||P) <=
// delta is a post-processing of the canonical pair on four points (Kairouz,
// Oh and Viswanath, "The composition theorem for differential privacy",
// ICML 2015, Theorem 2.4; Murtagh and Vadhan 2016): with e = e^eps,
//
//	P~ = ( delta, (1-delta) e/(1+e), (1-delta)/(1+e), 0     ),
//	Q~ = ( 0,     (1-delta)/(1+e),   (1-delta) e/(1+e), delta ),
//
// that is, P = T P~ and Q = T Q~ for a Markov kernel T from the four points
// to the range of the mechanism. Conversely T P~, T Q~ satisfy the
// constraints for every T (data processing; H_e(P~||Q~) = H_e(Q~||P~) =
// delta). Hence
//
//	delta'(eps') = sup_T H_{e^eps'}(B_k T P~ || B_k T Q~).
//
// The objective is convex in each column T(i) (a linear map followed by the
// convex H), and B_k T(i) is a finite mixture of points B_k(theta)
// (Carathéodory, the outputs are finite), so the supremum is over
// deterministic T: four points theta_1..theta_4 of the range. This replaces
// the linear program "max over output sets S of an LP in the masses" by a
// finite maximum of explicit sums, exactly.
//
// # Corners
//
// For k = 1, B_1(theta) is affine in each theta_l, so by the same
// convexity each theta_i can be moved to a corner of [c, 1-c]^d without
// decreasing the objective: the corner program below is the exact delta'.
// For k >= 2 this is the paper's Lemma 2, whose proof holds only for k = 1
// (Binomial(2, 1/2) is no mixture of Binomial(2, c) and Binomial(2, 1-c));
// the corner program is then a lower bound on delta' (its witness is a real
// mechanism), and equality is conjectured: brute force over grids of
// interior points at d = 1 finds nothing above the corners (hockey tests).
//
// On corners, flipping a coordinate in every corner (with m_l -> k - m_l on
// the count outputs) and permuting coordinates are symmetries, and a
// coordinate on which the four points agree can be dropped (its draws are
// independent noise, a garbling of any informative coordinate). So the
// corner program is a maximum over the support configurations of
// corner.Configs(d): C(d+6, 6) of them, each a channel of prod_t (k n_t + 1)
// outputs, with canonical point i on the configuration's point i.
//
// # Rounding model
//
// Each configuration's H is evaluated in float64 from log-probabilities
// (corner.Channel.LogColumn, each log K[b, z] within (8 + 2G)(1 + |log K|)
// ulps, G groups), with a per-output error bound that covers them, the
// masses of P~ and Q~ (8 ulps), e^eps' (1 ulp) and the summation (N ulps
// for N outputs), doubled. Result.Lower and Result.Upper are the computed
// maximum minus and plus that bound: rigorous bounds on the corner program
// under this model, about 1e-13 apart (at most 1e-12 in the tests).
package hockey

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/corner"
)

// Params is one instance: the mechanism is (Eps, Delta)-DP on [C, 1-C]^D,
// followed by K Bernoulli samples per coordinate; EpsOut is the eps' at
// which delta' is wanted.
type Params struct {
	D      int     // dimension of theta, >= 1
	K      int     // Bernoulli samples released, >= 1
	C      float64 // range constant: theta in [C, 1-C]^D, 0 < C < 1/2
	Eps    float64 // DP level of the mechanism, nats, >= 0 and finite
	Delta  float64 // delta of the mechanism, in [0, 1)
	EpsOut float64 // eps' of the amplified guarantee, nats, >= 0 and finite
}

// MaxWork is the largest number of outputs summed over the configurations,
// sum over corner.Configs(D) of prod_t (K n_t + 1), that Delta accepts; it
// costs about 8 float operations and an exp each (measured: about 1 s for
// 2^24 outputs).
const MaxWork = 1 << 24

// ErrTooLarge is returned (wrapped) by Delta for instances above MaxWork.
var ErrTooLarge = errors.New("hockey: instance too large")

// Work returns the number of outputs Delta evaluates for (d, k): the sum
// over corner.Configs(d) of Config.Outputs(k), saturated at MaxWork+1.
func Work(d, k int) int {
	w := 0
	for _, cf := range corner.Configs(d) {
		o := 1
		for _, n := range cf {
			if o > MaxWork/(k*n+1) {
				return MaxWork + 1
			}
			o *= k*n + 1
		}
		if w += o; w > MaxWork {
			return MaxWork + 1
		}
	}
	return w
}

// Validate returns an error naming the first field of p outside its domain.
func (p Params) Validate() error {
	for _, err := range []error{check.D(p.D), check.K(p.K), check.C(p.C), check.Eps(p.Eps)} {
		if err != nil {
			return err
		}
	}
	if err := CheckDelta(p.Delta); err != nil {
		return err
	}
	if !(p.EpsOut >= 0) || math.IsInf(p.EpsOut, 1) {
		return fmt.Errorf("eps_out is %v, must be >= 0 and finite", p.EpsOut)
	}
	return nil
}

// CheckDelta returns an error unless 0 <= delta < 1 (NaN is rejected).
// delta = 1 is excluded: every pair is (eps, 1)-DP, nothing to amplify.
func CheckDelta(delta float64) error {
	if !(delta >= 0 && delta < 1) {
		return fmt.Errorf("delta is %v, must be in [0, 1)", delta)
	}
	return nil
}

// Method names of Result.Method.
const (
	// MethodExact: k = 1, the corner program is delta' itself (see the
	// package doc): Lower <= delta' <= Upper.
	MethodExact = "canonical-pair"
	// MethodCorners: k >= 2, Lower <= delta' is proved and Upper bounds the
	// corner program; Upper >= delta' rests on the conjecture that corners
	// suffice for k >= 2.
	MethodCorners = "canonical-pair-corners"
)

// Result is the amplified delta' at Params.EpsOut.
type Result struct {
	Params
	// Lower is a verified lower bound on delta': the witness below is an
	// (Eps, Delta)-DP pair whose amplified hockey-stick divergence is at
	// least Lower (rounding model of the package doc).
	Lower float64
	// Upper bounds the corner program from above (same model); with
	// MethodExact or MethodLifted it bounds delta' itself.
	Upper float64
	// Value is the float64 maximum, between Lower and Upper (no claim).
	Value  float64
	Method string // MethodExact, MethodLifted, MethodPieces or MethodCorners
	// Witness: the canonical points' corners (Corners[i] carries P~_i and
	// Q~_i, as bit strings, see corner.Name) and the merged pair.
	Corners [4]string
	Support []string  // distinct corners of the witness
	P, Q    []float64 // masses on Support
	// DivPQ and DivQP are H_{e^Eps}(P||Q) and H_{e^Eps}(Q||P) recomputed
	// from the float64 masses: Delta up to rounding (exactly Delta for the
	// exact pair, by construction).
	DivPQ, DivQP float64
	Configs      int     // configurations evaluated
	Outputs      int     // outputs evaluated over all configurations
	Seconds      float64 // wall time
	// Certificate states claim >= delta' for the independent checker
	// (package verify), with LB Lower: with MethodPieces a
	// certfile.KindDeltaPieces file (the multipliers of PiecesUpper, claim
	// Upper), with MethodExact and MethodLifted a certfile.KindDeltaCorners
	// file (the k = 1 corner program at n = D K, which the checker
	// recomputes; claim Upper) up to n = certfile.MaxDeltaCornersN, past it
	// the pieces file (claim the pieces bound, at or above Upper); nil with
	// MethodCorners (no proof) and past certfile.MaxDeltaEps.
	Certificate *certfile.File
}

// Canonical returns the canonical (eps, delta) pair P~, Q~ (package doc),
// each mass within 8 ulps of its exact value. It panics unless eps >= 0 and
// 0 <= delta < 1.
func Canonical(eps, delta float64) (p, q [4]float64) {
	if !(eps >= 0) || !(delta >= 0 && delta < 1) {
		panic("hockey: Canonical: eps or delta outside its domain")
	}
	// e/(1+e) = 1/(1+e^-eps) and 1/(1+e) = e^-eps/(1+e^-eps): no overflow.
	em := math.Exp(-eps)
	hi, lo := 1/(1+em), em/(1+em)
	p = [4]float64{delta, (1 - delta) * hi, (1 - delta) * lo, 0}
	q = [4]float64{0, (1 - delta) * lo, (1 - delta) * hi, delta}
	return p, q
}

const ulp = 0x1p-52

// Delta returns delta'(EpsOut) for the instance p: the maximum over the
// support configurations of the canonical pair (package doc), with a
// rigorous enclosure [Lower, Upper] of the corner program. For K >= 2,
// where the k = 1 program at dimension D K fits (D K <= 16 and Work(D K, 1)
// <= MaxWork), Upper is that program's (MethodLifted): a proved bound on
// delta' over the whole box by the lifting lemma; beyond it, up to D K =
// MaxPiecesN, Upper is PiecesUpper (MethodPieces), proved the same way. It
// returns an
// error for invalid input, ErrTooLarge (wrapped) when Work(D, K) exceeds
// MaxWork, and ctx.Err() when ctx is cancelled.
func Delta(ctx context.Context, p Params) (*Result, error) {
	start := time.Now()
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("hockey.Delta: %w", err)
	}
	if w := Work(p.D, p.K); w > MaxWork {
		return nil, fmt.Errorf("hockey.Delta: d=%d k=%d needs more than %d outputs: %w", p.D, p.K, MaxWork, ErrTooLarge)
	}
	pt, qt := Canonical(p.Eps, p.Delta)
	r := &Result{Params: p, Method: method(p.K)}
	sw, err := sweep(ctx, p.D, p.K, p.C, pt, qt, []float64{math.Exp(p.EpsOut)})
	if err != nil {
		return nil, err
	}
	r.Lower, r.Upper, r.Value = sw.lower[0], sw.upper[0], sw.value[0]
	r.Configs, r.Outputs = sw.configs, sw.outputs
	if p.K > 1 && p.D*p.K <= maxLiftDim && Work(p.D*p.K, 1) <= MaxWork {
		// The lifting lemma: the k = 1 corner program at dimension D K is
		// exact over its box and bounds delta' at (D, K) from above.
		sl, err := sweep(ctx, p.D*p.K, 1, p.C, pt, qt, []float64{math.Exp(p.EpsOut)})
		if err != nil {
			return nil, err
		}
		r.Method, r.Upper = MethodLifted, sl.upper[0]
		r.Outputs += sl.outputs
	} else if p.K > 1 && p.D*p.K <= MaxPiecesN {
		b, err := piecesBoundOf(ctx, p)
		if err != nil {
			return nil, err
		}
		r.Method, r.Upper = MethodPieces, b.up
		r.Certificate = certfile.NewDeltaPieces(p.D, p.K, p.C, p.Eps, p.Delta, p.EpsOut, b.up, r.Lower, b.l0, b.l1, b.l2)
	}
	switch n := p.D * p.K; {
	case p.Eps > certfile.MaxDeltaEps || math.Abs(p.EpsOut) > certfile.MaxDeltaEps:
		// Past the checker's range (e^eps beyond any use): no file, the
		// row is reported unchecked.
		r.Certificate = nil
	case (r.Method == MethodExact || r.Method == MethodLifted) && n <= certfile.MaxDeltaCornersN:
		r.Certificate = certfile.NewDeltaCorners(p.D, p.K, p.C, p.Eps, p.Delta, p.EpsOut, r.Upper, r.Lower)
	case r.Method == MethodExact || r.Method == MethodLifted:
		// Past the checker's corner program: the pieces bound, whose
		// certificate it checks at any n up to MaxPiecesN; its claim
		// (above Upper) is what a checked run reports.
		b, err := piecesBoundOf(ctx, p)
		if err != nil {
			return nil, err
		}
		r.Certificate = certfile.NewDeltaPieces(p.D, p.K, p.C, p.Eps, p.Delta, p.EpsOut, max(b.up, r.Upper), r.Lower, b.l0, b.l1, b.l2)
	}
	bestCf := sw.best[0]
	r.witness(bestCf, pt, qt)
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

func method(k int) string {
	if k > 1 {
		return MethodCorners
	}
	return MethodExact
}

// sweepResult holds, per likelihood-ratio level g of sweep, the enclosure
// of the corner program and a maximizing configuration.
type sweepResult struct {
	lower, upper, value []float64
	best                []corner.Config
	configs, outputs    int
}

// sweep evaluates the corner program for the pair (pt, qt) on the canonical
// points at every level g in gs (g = e^eps', any g >= 0): the maximum over
// corner.Configs(d) of H_g(B_k T pt || B_k T qt), with the rounding model
// of the package doc. Each configuration's output distributions are
// computed once and summed for every g. The caller checks Work(d, k).
func sweep(ctx context.Context, d, k int, c float64, pt, qt [4]float64, gs []float64) (*sweepResult, error) {
	n := len(gs)
	sw := &sweepResult{lower: make([]float64, n), upper: make([]float64, n), value: make([]float64, n), best: make([]corner.Config, n)}
	// The empty set gives H >= 0 for every pair: the witness P = Q (all
	// points on corner 0) has delta' = 0 exactly, hence lower = upper = 0
	// to start.
	for j := range sw.value {
		sw.value[j] = -1
	}
	var lc [4][]float64
	var u, v, rel []float64
	for i, cf := range corner.Configs(d) {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		sizes, cs := cf.Groups()
		ch := corner.New(k, c, sizes)
		m := ch.Outputs()
		for j := range lc {
			lc[j] = grow(lc[j], m)
			ch.LogColumn(lc[j], cs[j])
		}
		u, v, rel = grow(u, m), grow(v, m), grow(rel, m)
		mix(lc, pt, qt, len(sizes), u, v, rel)
		sw.configs++
		sw.outputs += m
		for j, g := range gs {
			if j%256 == 255 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			val, pad := hs(u, v, rel, g)
			if val > sw.value[j] {
				sw.value[j], sw.best[j] = val, cf
			}
			sw.upper[j] = math.Max(sw.upper[j], val+pad)
			sw.lower[j] = math.Max(sw.lower[j], val-pad)
		}
	}
	for j := range gs {
		if sw.upper[j] > 0 {
			// 0 stays 0: every term was below -its error bound, so the
			// exact value is 0.
			sw.upper[j] = math.Min(1, math.Nextafter(sw.upper[j], math.Inf(1)))
		}
		if sw.lower[j] > 0 {
			sw.lower[j] = math.Nextafter(sw.lower[j], 0)
		}
	}
	return sw, nil
}

// mix sets u = sum_i p_i K[., z_i] and v = sum_i q_i K[., z_i], with lc[i]
// = log K[., z_i] over a channel of G groups, and rel[b], the relative
// error bound of each K entry (the log's absolute error, then exp), of the
// masses (8 ulps), e^eps' (1 ulp) and the mixing sum (4 terms): the term
// u_b - g v_b is off by at most rel_b (u_b + g v_b), plus what underflow of
// exp below 2^-1022 loses (package doc).
func mix(lc [4][]float64, p, q [4]float64, G int, u, v, rel []float64) {
	for b := range u {
		var ub, vb, big float64
		for i := range lc {
			l := lc[i][b]
			k := math.Exp(l)
			ub += p[i] * k
			vb += q[i] * k
			big = math.Max(big, math.Abs(l))
		}
		u[b], v[b] = ub, vb
		rel[b] = ulp * (float64(8+2*G)*(1+big) + 16)
	}
}

// hs returns the float64 value of H_g(u||v) = sum_b [u_b - g v_b]_+ and a
// bound pad on its error under the model of mix.
func hs(u, v, rel []float64, g float64) (val, pad float64) {
	under := 4 * 0x1p-1022 * (1 + g)
	for b, ub := range u {
		vb := v[b]
		errB := rel[b]*(ub+g*vb) + under
		t := ub - g*vb
		if t > -errB { // [.]_+ is 1-Lipschitz: only terms that may be positive err
			pad += errB
		}
		if t > 0 {
			val += t
		}
	}
	pad += float64(len(u)+4) * ulp * val // summation of at most n positive terms
	return val, 2 * pad
}

// witness fills the witness fields of r for configuration cf.
func (r *Result) witness(cf corner.Config, pt, qt [4]float64) {
	d := r.D
	cs := cf.Corners()
	idx := map[int]int{}
	for i, z := range cs {
		r.Corners[i] = corner.Name(z, d)
		j, ok := idx[z]
		if !ok {
			j = len(r.Support)
			idx[z] = j
			r.Support = append(r.Support, corner.Name(z, d))
			r.P = append(r.P, 0)
			r.Q = append(r.Q, 0)
		}
		r.P[j] += pt[i]
		r.Q[j] += qt[i]
	}
	e := math.Exp(r.Eps)
	r.DivPQ, r.DivQP = H(r.P, r.Q, e), H(r.Q, r.P, e)
}

// H returns the hockey-stick divergence sum_b [u_b - g v_b]_+ in float64
// (no rounding control). It panics if len(u) != len(v).
func H(u, v []float64, g float64) float64 {
	if len(u) != len(v) {
		panic("hockey: H: length mismatch")
	}
	var s float64
	for b := range u {
		if t := u[b] - g*v[b]; t > 0 {
			s += t
		}
	}
	return s
}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}
