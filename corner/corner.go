// Package corner holds the c-corner distributions of the Bernoulli
// amplification program and the channel B_k from corners to outputs.
//
// A corner is a point of {c, 1-c}^d, indexed by a bit string z in {0,1}^d:
// bit l = 0 means theta_l = c, bit 1 means theta_l = 1-c. Corner index z has
// bit l at position d-1-l, so Name(z) reads z_0 z_1 ... z_{d-1}.
//
// The outputs of B_k are per-group counts of ones: coordinates are
// partitioned into groups of sizes n_1..n_G whose k n_g draws are summed, a
// sufficient statistic whenever the corners in play agree within each group.
// The full program has d groups of size 1 ((k+1)^d outputs instead of
// 2^(dk)); the reduced program of a support configuration groups coordinates
// by bit pattern. On group g a corner with bit 0 gives Binomial(k n_g, c) and
// one with bit 1 gives Binomial(k n_g, 1-c), so the channel matrix is the
// Kronecker product of G matrices W_g of size (k n_g + 1) x 2.
package corner

import (
	"math"
	"strings"

	"github.com/bernamp/bernamp/internal/logspace"
)

// Name returns the bit string of corner z in dimension d.
func Name(z, d int) string {
	var b strings.Builder
	for l := range d {
		b.WriteByte('0' + byte(z>>(d-1-l)&1))
	}
	return b.String()
}

// Channel is B_k on coordinate groups. Build it with New.
type Channel struct {
	k      int
	c      float64
	groups []int
	logW   [][2][]float64 // logW[g][bit][m] = log P(count m | bit) on group g
	w      [][2][]float64 // the same probabilities, for Apply
	outs   int
}

// New returns the channel of k samples with range constant c on coordinate
// groups of the given sizes. It panics unless k >= 1, 0 < c < 1/2, every
// size is >= 1 and 2^len(groups) fits in an int.
func New(k int, c float64, groups []int) *Channel {
	if k < 1 || !(c > 0 && c < 0.5) || len(groups) > 40 {
		panic(badChannel)
	}
	ch := &Channel{k: k, c: c, groups: append([]int(nil), groups...), outs: 1}
	for _, n := range groups {
		if n < 1 {
			panic(badChannel)
		}
		t := k * n
		var w [2][]float64
		w[0], w[1] = make([]float64, t+1), make([]float64, t+1)
		for m := 0; m <= t; m++ {
			w[0][m] = logspace.BinomPMF(m, t, c, 1-c)
			w[1][m] = logspace.BinomPMF(t-m, t, c, 1-c) // Binomial(t, 1-c) at m
		}
		ch.logW = append(ch.logW, w)
		var lin [2][]float64
		for b := range lin {
			lin[b] = make([]float64, t+1)
			for m, v := range w[b] {
				lin[b][m] = math.Exp(v)
			}
		}
		ch.w = append(ch.w, lin)
		ch.outs *= t + 1
	}
	return ch
}

// Full returns the channel of the full program: d groups of size 1.
func Full(d, k int, c float64) *Channel {
	g := make([]int, d)
	for i := range g {
		g[i] = 1
	}
	return New(k, c, g)
}

// Inputs returns the number of corners, 2^G.
func (ch *Channel) Inputs() int { return 1 << len(ch.groups) }

// Outputs returns the number of outputs, prod_g (k n_g + 1).
func (ch *Channel) Outputs() int { return ch.outs }

// LogColumn writes log K[., z], the log output distribution of corner z,
// into dst and returns it. It panics if len(dst) != Outputs().
func (ch *Channel) LogColumn(dst []float64, z int) []float64 {
	if len(dst) != ch.outs {
		panic(badLength)
	}
	dst[0] = 0
	size := 1
	G := len(ch.groups)
	// Build the Kronecker product group by group, group 0 outermost: the
	// new index is old*(t+1) + m.
	for g := range G {
		w := ch.logW[g][z>>(G-1-g)&1]
		t1 := len(w)
		for i := size - 1; i >= 0; i-- {
			base := dst[i]
			for m := t1 - 1; m >= 0; m-- {
				dst[i*t1+m] = base + w[m]
			}
		}
		size *= t1
	}
	return dst
}

// Apply writes K x into dst (linear probabilities) for x a vector over the
// 2^G corners, one group at a time: the cost is about Outputs() * 2 * G
// multiply-adds instead of Outputs() * 2^G for the dense product. work must
// have length at least max(Outputs(), Inputs()) * 2 or be nil (then Apply
// allocates). Apply panics if len(x) != Inputs() or len(dst) != Outputs().
func (ch *Channel) Apply(dst, x, work []float64) {
	G := len(ch.groups)
	if len(x) != ch.Inputs() || len(dst) != ch.outs {
		panic(badLength)
	}
	n := max(ch.outs, ch.Inputs())
	if len(work) < 2*n {
		work = make([]float64, 2*n)
	}
	src, nxt := work[:n], work[n:2*n]
	copy(src, x)
	// Axis g has size t_g+1 for g < current axis and 2 after it.
	outer := 1
	for g := range G {
		w := ch.w[g]
		t1 := len(w[0])
		inner := 1 << (G - 1 - g)
		for o := range outer {
			for i := range inner {
				s0 := src[(o*2+0)*inner+i]
				s1 := src[(o*2+1)*inner+i]
				for m := range t1 {
					nxt[(o*t1+m)*inner+i] = s0*w[0][m] + s1*w[1][m]
				}
			}
		}
		outer *= t1
		src, nxt = nxt, src
	}
	copy(dst, src[:ch.outs])
}

const (
	badChannel = "corner: k must be >= 1, c in (0, 1/2), group sizes >= 1, at most 40 groups"
	badLength  = "corner: length mismatch"
)
