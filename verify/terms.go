package verify

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// The terms of F. A pieces certificate has one group of n bits sharing c;
// a ranges certificate (certfile.KindRanges) has groups of n_g bits
// sharing c_g. Either way
//
//	F(p, q) = sum_i g(p A_i + (1-p) A'_i, q A_i + (1-q) A'_i)
//
// over the count vectors x = (x_g), 0 <= x_g <= n_g, numbered i = sum_g
// x_g s_g with s_g = prod_(h<g) (n_h + 1) (group 0 varies fastest), where
// A_i = prod_g C(n_g, x_g) c_g^x_g (1-c_g)^(n_g-x_g) and A'_i = A_m is
// the weight of the mirror n - x, whose number is m = T - 1 - i with T =
// prod_g (n_g + 1) terms. With one group i is j and A_i, A'_i are B_j,
// B'_j. Only the sign of D_i = A_i - A'_i matters to the bounds (which
// half of G a term is paired with, psi.go): it is that of v_i = sum_g (n_g
// - 2 x_g) log((1-c_g)/c_g), since A_i / A'_i = e^(v_i).

// group is n bits sharing c.
type group struct {
	n int
	c *big.Rat
}

// The sides of a term (sides).
const (
	sideLo      int8 = iota // D_i > 0: paired with g(p, q)
	sideHi                  // D_i < 0: paired with g(1-p, 1-q)
	sideMid                 // the self-mirror i = m: A_i = A'_i, the term is the constant A_i
	sideUnknown             // the enclosure of v_i holds 0 and i is not its mirror: no pairing of third derivatives
)

// MaxTerms caps T, the number of terms of F in a ranges certificate
// (about twice the solver's certify.MaxRangeTerms, which counts mirror
// pairs once, with room): each bound costs O(T).
const MaxTerms = 1 << 16

// grps returns c's groups: one group (n, c) for a pieces certificate.
func (c *cert) grps() []group {
	if len(c.groups) > 0 {
		return c.groups
	}
	return []group{{c.n, c.c}}
}

// termCount returns T = prod_g (n_g + 1), or -1 when it exceeds max.
func termCount(gs []group, max int) int {
	t := 1
	for _, g := range gs {
		if g.n+1 > max/t {
			return -1
		}
		t *= g.n + 1
	}
	if t > max {
		return -1
	}
	return t
}

// groupWeights encloses C(n, j) c^j (1-c)^(n-j), j = 0..n, at 128 bits:
// exact binomials times powers built by repeated products.
func groupWeights(n int, c *big.Rat) []ival {
	one := constIval(1)
	cc := ratIval(c)
	cb := one.sub(cc)
	cp, cbp := make([]ival, n+1), make([]ival, n+1)
	cp[0], cbp[0] = one, one
	for i := 1; i <= n; i++ {
		cp[i], cbp[i] = cp[i-1].mul(cc), cbp[i-1].mul(cb)
	}
	out := make([]ival, n+1)
	binom := big.NewInt(1)
	for j := 0; j <= n; j++ {
		if j > 0 {
			binom.Mul(binom, big.NewInt(int64(n-j+1)))
			binom.Quo(binom, big.NewInt(int64(j))) // exact
		}
		out[j] = intIval(binom).mul(cp[j]).mul(cbp[n-j])
	}
	return out
}

// eachTerm calls fn(i, A_i) for every term in order of i, with A_i
// enclosed at 128 bits: one group streams eachWeight (O(1) memory beyond
// fn's), several take products of the groups' weights (eachWeight each).
func eachTerm(gs []group, fn func(i int, a ival)) {
	if len(gs) == 1 {
		eachWeight(gs[0].n, gs[0].c, fn)
		return
	}
	ws := make([][]ival, len(gs))
	for g, gr := range gs {
		ws[g] = weightsBig(gr.n, gr.c)
	}
	products(gs, ws, fn)
}

// products calls fn(i, prod_g ws[g][x_g]) over the count vectors in
// order of i.
func products(gs []group, ws [][]ival, fn func(i int, a ival)) {
	countVectors(gs, func(i int, x []int) {
		a := ws[0][x[0]]
		for g := 1; g < len(gs); g++ {
			a = a.mul(ws[g][x[g]])
		}
		fn(i, a)
	})
}

// countVectors calls fn(i, x) for every count vector x (0 <= x_g <= n_g)
// in order of its number i (group 0 varies fastest); x is reused.
func countVectors(gs []group, fn func(i int, x []int)) {
	x := make([]int, len(gs))
	for i := 0; ; i++ {
		fn(i, x)
		g := 0
		for g < len(gs) && x[g] == gs[g].n {
			x[g] = 0
			g++
		}
		if g == len(gs) {
			return
		}
		x[g]++
	}
}

// sides returns the side of every term i < T (see the constants). One
// group: sideLo for 2j < n, sideHi for 2j > n (c < 1/2), sideMid for 2j =
// n. Several: the sign of v_i enclosed in float64 from log((1-c_g)/c_g);
// where the enclosure holds 0 and i is not its own mirror, sideUnknown
// (sound: the pairing of third derivatives is then not used).
func sides(gs []group, t int) []int8 {
	out := make([]int8, t)
	if len(gs) == 1 {
		for j := range out {
			switch {
			case 2*j < t-1:
				out[j] = sideLo
			case 2*j > t-1:
				out[j] = sideHi
			default:
				out[j] = sideMid
			}
		}
		return out
	}
	lam := make([]fi, len(gs))
	for g, gr := range gs {
		odds := constIval(1).sub(ratIval(gr.c)).div(ratIval(gr.c))
		lam[g] = logBig(odds)
	}
	countVectors(gs, func(i int, x []int) {
		v := pt64(0)
		for g, gr := range gs {
			v = v.add(pt64(float64(gr.n - 2*x[g])).mul(lam[g]))
		}
		switch {
		case 2*i == t-1:
			out[i] = sideMid
		case v.lo > 0:
			out[i] = sideLo
		case v.hi < 0:
			out[i] = sideHi
		default:
			out[i] = sideUnknown
		}
	})
	return out
}

// termOrder returns, for several groups, the terms of each half (halfOf:
// sideLo and sideUnknown to half 0, sideHi to half 1) from the most
// G-like to the least: by v_i = log(A_i/A'_i) from largest to smallest
// for half 0, from smallest to largest for half 1 (v_i in float64 from
// the groups' c rounded: an order only, which no bound's soundness
// depends on).
func termOrder(gs []group, side []int8) [2][]int32 {
	lam := make([]float64, len(gs))
	for g, gr := range gs {
		c, _ := gr.c.Float64()
		lam[g] = math.Log1p(-c) - math.Log(c)
	}
	v := make([]float64, len(side))
	var out [2][]int32
	countVectors(gs, func(i int, x []int) {
		for g, gr := range gs {
			v[i] += float64(gr.n-2*x[g]) * lam[g]
		}
		switch side[i] {
		case sideLo, sideUnknown:
			out[0] = append(out[0], int32(i))
		case sideHi:
			out[1] = append(out[1], int32(i))
		}
	})
	slices.SortStableFunc(out[0], func(a, b int32) int { return cmp.Compare(v[b], v[a]) })
	slices.SortStableFunc(out[1], func(a, b int32) int { return cmp.Compare(v[a], v[b]) })
	return out
}

// checkGroups checks the groups of a ranges certificate (nothing for a
// pieces one) and returns why they are rejected, or "": at most
// certfile.MaxRangeGroups groups (Validate), each c_g in (0, 1/2) and
// strictly increasing (the writer's order; c is the first), each n_g a
// multiple of k (k samples of n_g/k coordinates) summing to n = d k, and
// at most MaxTerms terms.
func checkGroups(c *cert) string {
	if c.groups == nil {
		return ""
	}
	half := big.NewRat(1, 2)
	sum := 0
	for i, g := range c.groups {
		switch {
		case g.c.Sign() <= 0 || g.c.Cmp(half) >= 0:
			return fmt.Sprintf("group %d: c = %s is not in (0, 1/2)", i+1, g.c.FloatString(20))
		case i > 0 && g.c.Cmp(c.groups[i-1].c) <= 0:
			return fmt.Sprintf("group %d: c = %s is not above the previous group's", i+1, g.c.FloatString(20))
		case g.n < 1 || g.n%c.k != 0:
			return fmt.Sprintf("group %d: n = %d is not a positive multiple of k = %d", i+1, g.n, c.k)
		case g.n > c.n-sum:
			return fmt.Sprintf("the groups' n sum to more than n = %d", c.n)
		}
		sum += g.n
	}
	if sum != c.n {
		return fmt.Sprintf("the groups' n sum to %d, not n = d k = %d", sum, c.n)
	}
	if termCount(c.groups, MaxTerms) < 0 {
		return fmt.Sprintf("the groups give more than %d terms of F, the checker's cap", MaxTerms)
	}
	return ""
}
