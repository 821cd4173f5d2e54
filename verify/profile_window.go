package verify

import (
	"context"
	"math"
)

// The composition on a window (item 3 of checkProfile, composedDeltaParts).
//
// The composition q of the parts' finite masses lives on the losses (lo +
// n) h, n < m = 1 + sum_i (len p_i - 1) T_i, lo = sum_i T_i lo_i; delta
// at x0 is sum_n q_n w_n, w_n = [1 - e^(x0 - l_n)]_+ in [0, 1]. It is
// computed on a window of L points (a power of two) starting at s, the
// first index whose loss is not provably <= x0 (so w_n = 0 for every n <
// s), as follows.
//
//   - A transform of length L computes the circular convolution: the
//     linear one with every index folded mod L (convCircular). Window
//     position n in [s, s + L) holds q_n plus the (tilted) masses of the
//     indices n' = n + k L, k != 0; every exact mass is >= 0, so a fold
//     only adds mass, and what it adds is counted with some weight w in
//     [0, 1] at its landing place: an over-count, on the safe side wherever
//     it lands. The masses below s have weight 0: folding them loses
//     nothing. Positions n >= m hold only folded mass and are skipped.
//   - The masses above the window (n >= s + L) are not at their place:
//     their contribution is at most their total (w <= 1), bounded by
//     Chernoff: for any lambda >= 0, sum_{n >= s+L} q_n <= E[e^(lambda S)]
//     e^(-lambda l_{s+L}) with E[e^(lambda S)] = prod_i (sum_j p_ij
//     e^(lambda l_ij))^T_i, the finite masses' own (not normalized)
//     moment generating function, computed rounded up in log space
//     (tailFrom); lambda is chosen in plain float64 (any value is valid).
//
// So delta(x0) <= (the window's sum, with the transform's error bound) +
// (the Chernoff tail). The tilt by lambda_t (tilt) decides what a fold
// costs: a mass folded up from below lands k L points higher and is
// untilted there, so it is counted at most e^(-lambda_t L h) times itself;
// one folded down from above is counted at most e^(lambda_t L h) times
// itself (and already bounded by the tail). window picks the least L
// whose estimated extra, tail (1 + e^(lambda_t L h)) + e^(-lambda_t L h)
// (plain float64: the choice needs no proof, the bound holds for any L),
// is below the budget, or the whole support when that is shorter (then no
// fold and no tail: the exact linear convolution).

// composition holds one direction's parts, prepared for composing on a
// window.
type composition struct {
	parts   []part
	h, x0   float64
	lambda  float64   // the tilt (tilt): lambda_t
	nus     []float64 // and its normalizers
	lo, m   int64     // the support: losses (lo + n) h, n < m
	s       int64     // the window's start: every n < s has loss <= x0
	lams, k []float64 // the Chernoff grid: lambda and K(lambda) = log E[e^(lambda S)], plain float64
}

func newComposition(parts []part, h, x0 float64) *composition {
	c := &composition{parts: parts, h: h, x0: x0, m: 1}
	c.lambda, c.nus = tilt(parts, h, x0)
	for _, pa := range parts {
		c.lo += int64(pa.steps) * int64(pa.lo)
		c.m += int64(len(pa.p)-1) * int64(pa.steps)
	}
	// s: the first index whose loss is not <= x0 (enclosed). x0/h is
	// within a few units of the index for a support of fewer than 2^53
	// points; the steps below correct it.
	f := math.Floor(x0/h) - float64(c.lo)
	switch {
	case !(f > 0):
		c.s = 0
	case f >= float64(c.m):
		c.s = c.m
	default:
		c.s = int64(f)
	}
	for c.s > 0 && c.loss(c.s-1).hi > x0 {
		c.s--
	}
	for c.s < c.m && c.loss(c.s).hi <= x0 {
		c.s++
	}
	return c
}

// loss encloses the loss of support index n.
func (c *composition) loss(n int64) fi { return pt64(float64(c.lo + n)).mul(pt64(c.h)) }

// full returns the least power of two (at least 2) covering the support.
func (c *composition) full() int64 {
	L := int64(2)
	for L < c.m {
		L <<= 1
	}
	return L
}

// window returns the window length for an extra of at most about budget
// (absolute, on delta): the least power of two whose estimated extra (the
// file comment) is at most budget, or full() when none shorter is (in
// particular without a tilt, lambda_t = 0: a fold from below would cost
// up to its whole mass).
func (c *composition) window(budget float64) int64 {
	full := c.full()
	if !(budget > 0) || !(c.lambda > 0) {
		return full
	}
	lb := math.Log(budget)
	for L := int64(2); L < full; L <<= 1 {
		lh := float64(L) * c.h
		est := math.Exp(-c.lambda * lh)
		if c.s+L < c.m {
			_, t := c.chernoffLambda(float64(c.lo+c.s+L) * c.h)
			est += math.Exp(t) + math.Exp(t+c.lambda*lh)
		}
		if math.Log(est) <= lb {
			return L
		}
	}
	return full
}

// kAt returns K(lam) = log E[e^(lam S)] = sum_i T_i log sum_j p_ij e^(lam
// l_ij), plain float64 (-Inf for no mass).
func (c *composition) kAt(lam float64) float64 {
	k := 0.0
	for _, pa := range c.parts {
		mx := math.Inf(-1)
		for j, v := range pa.p {
			if v > 0 {
				mx = max(mx, lam*float64(pa.lo+j)*c.h)
			}
		}
		if math.IsInf(mx, -1) {
			return mx
		}
		s := 0.0
		for j, v := range pa.p {
			if v > 0 {
				s += v * math.Exp(lam*float64(pa.lo+j)*c.h-mx)
			}
		}
		k += float64(pa.steps) * (mx + math.Log(s))
	}
	return k
}

// chernoffLambda returns the lambda of the grid minimizing K(lambda) -
// lambda u, and that minimum (the log of the Chernoff bound on the mass
// at losses >= u, plain float64). The grid (built once) is lambda_t
// 2^(j/4), j = 0..40 (the minimizer for u >= x0 is at least about
// lambda_t, which puts the mean at x0), or without a tilt 2^(j/4) / top,
// j = -40..40, top the largest |loss| of a step.
func (c *composition) chernoffLambda(u float64) (lam, logTail float64) {
	if c.lams == nil {
		base, j0 := c.lambda, 0
		if !(base > 0) {
			top := 0.0
			for _, pa := range c.parts {
				top = max(top, math.Abs(float64(pa.lo)*c.h), math.Abs(float64(pa.lo+len(pa.p)-1)*c.h))
			}
			base, j0 = 1, -40
			if top > 0 {
				base = 1 / top
			}
		}
		c.lams, c.k = []float64{0}, []float64{c.kAt(0)}
		for j := j0; j <= 40; j++ {
			l := base * math.Exp2(float64(j)/4)
			c.lams = append(c.lams, l)
			c.k = append(c.k, c.kAt(l))
		}
	}
	lam, logTail = 0, math.Inf(1)
	for i, l := range c.lams {
		if t := c.k[i] - l*u; t < logTail {
			lam, logTail = l, t
		}
	}
	return lam, logTail
}

// tailFrom returns an upper bound on the composition's mass at the indices
// >= n: E[e^(lam S)] e^(-lam l_n) for lam >= 0 (lam = 0: the total
// mass), rounded up in log space (each part's sum_j p_j e^(lam l_j) as
// e^mx sum_j p_j e^(lam l_j - mx), mx the largest exponent).
func (c *composition) tailFrom(n int64, lam float64) float64 {
	if n >= c.m {
		return 0
	}
	L := pt64(max(0, lam))
	k := 0.0
	for _, pa := range c.parts {
		ex := make([]float64, len(pa.p))
		mx := math.Inf(-1)
		for j, v := range pa.p {
			if v > 0 {
				ex[j] = L.mul(pt64(float64(pa.lo + j)).mul(pt64(c.h))).hi
				mx = max(mx, ex[j])
			}
		}
		if math.IsInf(mx, -1) {
			return 0 // no finite mass
		}
		s := 0.0
		for j, v := range pa.p {
			if v > 0 {
				s = up(s + up(v*expHi(up(ex[j]-mx))))
			}
		}
		k = up(k + up(float64(pa.steps)*up(mx+logHi(s))))
	}
	return expHi(up(k - L.mul(c.loss(n)).lo))
}

// delta returns upper bounds on the window's part of delta at x0 (the
// sum over window positions of the computed circular composition, its
// error by Cauchy-Schwarz, untilted and weighted) and on the mass above
// the window (tailFrom, 0 when the window reaches the support's end), for
// the window of L points (a power of two <= maxFFT) starting at s. Valid
// for any s with every loss below index s at most x0 (s <= c.s); a larger
// s folds mass of positive weight (tests use it as a broken fold).
func (c *composition) delta(ctx context.Context, s int64, L int) (in, tail float64, err error) {
	// p_ij e^(lambda l_j - nu_i) (rounded up): the tilt of a convolution
	// is the convolution of the tilts (one lambda for all kinds).
	tilted := make([][]float64, len(c.parts))
	steps := make([]int, len(c.parts))
	var tnu fi
	for i, pa := range c.parts {
		pt := make([]float64, len(pa.p))
		for j, v := range pa.p {
			if v > 0 {
				l := pt64(float64(pa.lo + j)).mul(pt64(c.h))
				ex := pt64(c.lambda).mul(l).sub(pt64(c.nus[i]))
				pt[j] = up(v * expHi(ex.hi))
			}
		}
		tilted[i], steps[i] = pt, pa.steps
		tnu = tnu.add(pt64(float64(pa.steps)).mul(pt64(c.nus[i])))
	}
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	x, e2, err := convCircular(tilted, steps, L)
	if err != nil {
		return 0, 0, err
	}
	// 4. sum over window positions n (losses > x0, n < m) of (x + |err|)
	// e^-(lambda l_n - sum T_i nu_i) w_n, the errors by Cauchy-Schwarz.
	sum, sq := 0.0, 0.0
	L64 := int64(L)
	for j, v := range x {
		r := (int64(j) - s) % L64
		if r < 0 {
			r += L64
		}
		n := s + r
		if n >= c.m {
			continue
		}
		l := c.loss(n)
		if l.hi <= c.x0 {
			continue
		}
		w := max(0, up(1-expLo(dn(c.x0-l.hi)))) // [1 - e^(x0 - l)]_+ from above
		e := expHi(tnu.sub(pt64(c.lambda).mul(l)).hi)
		sum = up(sum + up(up(v*e)*w))
		sq = up(sq + up(up(e*w)*up(e*w)))
	}
	in = up(sum + up(e2*up(math.Sqrt(sq))))
	if s+L64 < c.m {
		lam, _ := c.chernoffLambda(c.loss(s + L64).lo)
		tail = c.tailFrom(s+L64, lam)
	}
	return in, tail, nil
}
