package verify

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"slices"
)

// end is a logit coordinate: a rational, or -Inf (inf < 0) or +Inf (inf > 0).
// f is r when exact (set by the parser): two exact ends compare as
// float64, which is exact, without big.Rat.
type end struct {
	inf   int
	r     *big.Rat // nil when inf != 0
	f     float64
	exact bool
}

func (e end) String() string {
	switch {
	case e.inf < 0:
		return "-inf"
	case e.inf > 0:
		return "inf"
	}
	return e.r.FloatString(20)
}

func cmpEnd(a, b end) int {
	if a.inf != 0 || b.inf != 0 {
		return a.inf - b.inf // equal infinities compare equal; a finite end has inf 0
	}
	if a.exact && b.exact {
		return cmp.Compare(a.f, b.f) // no NaN: both are exact rationals
	}
	return a.r.Cmp(b.r)
}

// endCache parses tile ends, each distinct string once (the tiles share
// their ends; an end's rational is never modified in place, so that the
// tiles may share it).
type endCache map[string]end

func (m endCache) parse(s string) (end, error) {
	if e, ok := m[s]; ok {
		return e, nil
	}
	e, err := parseEnd(s)
	if err == nil {
		m[s] = e
	}
	return e, err
}

// exactDecimal returns the value of s when s is a decimal "[+-]digits" or
// "[+-]digits.digits" of at most 18 significant digits and 60 fraction
// digits that is exactly a float64, and ok false otherwise (the caller
// then parses s as a rational): s = M / 10^k with M < 10^18 an integer
// and k fraction digits is a float64 when 5^k divides M and N = M / 5^k <
// 2^53, and then s = N 2^-k exactly (normal: N >= 1, k <= 60).
func exactDecimal(s string) (f float64, ok bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	var m uint64
	digits, frac, dot, seen := 0, 0, false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			m = 10*m + uint64(c-'0')
			if m > 0 {
				digits++ // significant digits: m < 10^digits
			}
			if dot {
				frac++
			}
			seen = true
		case c == '.' && !dot && i > 0 && i < len(s)-1:
			dot = true
		default:
			return 0, false
		}
		if digits > 18 {
			return 0, false
		}
	}
	if !seen || frac > 60 {
		return 0, false
	}
	for range frac {
		if m%5 != 0 {
			return 0, false
		}
		m /= 5
	}
	if m >= 1<<53 {
		return 0, false
	}
	f = math.Ldexp(float64(m), -frac) // exact: m < 2^53, frac <= 60
	if neg {
		f = -f
	}
	return f, true
}

// box is [s1, s2] x [t1, t2] in logit coordinates.
type box struct{ s1, s2, t1, t2 end }

// finite says whether no end of b is infinite.
func (b box) finite() bool {
	return b.s1.inf == 0 && b.s2.inf == 0 && b.t1.inf == 0 && b.t2.inf == 0
}

func (b box) String() string {
	return fmt.Sprintf("[%v, %v] x [%v, %v]", b.s1, b.s2, b.t1, b.t2)
}

// rootBox is the half square p <= 1/2: s in [-inf, 0], t in [-inf, inf].
func rootBox() box {
	return box{end{inf: -1}, end{r: new(big.Rat)}, end{inf: -1}, end{inf: 1}}
}

// checkTiling proves that the tiles partition the root box: every tile is a
// nondegenerate box inside it, and the set splits recursively by straight
// cuts (a cut at s = v sends every tile of a region to one side) down to
// regions that are exactly one tile. Closed boxes that meet only on their
// sides are a partition; an overlap or a gap admits no such recursion. The
// tiles of the solver come from a binary split tree, so they always admit
// it; a tiling that is not of that kind is rejected even if it covers.
func checkTiling(tiles []box) error { return checkCover(tiles, rootBox(), "the half square") }

// checkCover is checkTiling for the region root (named name).
func checkCover(tiles []box, root box, name string) error {
	for i, t := range tiles {
		if cmpEnd(t.s1, t.s2) >= 0 || cmpEnd(t.t1, t.t2) >= 0 {
			return fmt.Errorf("tile %d %v is empty or reversed", i+1, t)
		}
		if cmpEnd(t.s1, root.s1) < 0 || cmpEnd(t.s2, root.s2) > 0 || cmpEnd(t.t1, root.t1) < 0 || cmpEnd(t.t2, root.t2) > 0 {
			return fmt.Errorf("tile %d %v is not inside %s %v", i+1, t, name, root)
		}
	}
	keys := endKeys(tiles)
	var byAxis [2][]int
	for axis := range byAxis {
		ord := make([]int, len(tiles))
		for i := range ord {
			ord[i] = i
		}
		slices.SortFunc(ord, func(a, b int) int { return cmp.Compare(keys[a][2*axis], keys[b][2*axis]) })
		byAxis[axis] = ord
	}
	return partition(tiles, keys, root, byAxis, make([]bool, len(tiles)))
}

// endKeys returns, for each tile, keys of its ends s1, s2, t1, t2 that
// compare as the ends do (cmpEnd): the ends themselves as float64 when
// every end is exact or infinite, else their ranks among all the ends.
func endKeys(tiles []box) [][4]float64 {
	keys := make([][4]float64, len(tiles))
	all := true
	for i, t := range tiles {
		for j, e := range [4]end{t.s1, t.s2, t.t1, t.t2} {
			switch {
			case e.inf != 0:
				keys[i][j] = math.Inf(e.inf)
			case e.exact:
				keys[i][j] = e.f
			default:
				all = false
			}
		}
	}
	if all {
		return keys
	}
	at := func(k int) end {
		t := tiles[k/4]
		return [4]end{t.s1, t.s2, t.t1, t.t2}[k%4]
	}
	ord := make([]int, 4*len(tiles))
	for k := range ord {
		ord[k] = k
	}
	slices.SortFunc(ord, func(a, b int) int { return cmpEnd(at(a), at(b)) })
	rank := 0
	for n, k := range ord {
		if n > 0 && cmpEnd(at(ord[n-1]), at(k)) != 0 {
			rank++
		}
		keys[k/4][k%4] = float64(rank)
	}
	return keys
}

// partition checks that the tiles of byAxis partition region r: byAxis[0]
// and byAxis[1] hold the same tiles, ordered by their lower ends along s
// and along t (keys, endKeys(tiles)). The order among tiles of equal lower
// end does not matter: no cut falls between them (the first ends above
// their common lower end). left is scratch space, one flag per tile.
func partition(tiles []box, keys [][4]float64, r box, byAxis [2][]int, left []bool) error {
	switch idx := byAxis[0]; len(idx) {
	case 0:
		return fmt.Errorf("region %v is not covered by any tile", r)
	case 1:
		t := tiles[idx[0]]
		if cmpEnd(t.s1, r.s1) != 0 || cmpEnd(t.s2, r.s2) != 0 || cmpEnd(t.t1, r.t1) != 0 || cmpEnd(t.t2, r.t2) != 0 {
			return fmt.Errorf("region %v is covered only in part, by tile %d %v", r, idx[0]+1, t)
		}
		return nil
	}
	for axis := range 2 {
		ord := byAxis[axis]
		lo := func(i int) float64 { return keys[i][2*axis] }
		hi := func(i int) float64 { return keys[i][2*axis+1] }
		// Cut positions: after the first i tiles (by lower end), when they
		// all end at or before the next one's lower end. Take the one
		// nearest the middle (a balanced recursion).
		cut := -1
		reach := hi(ord[0])
		for i := 1; i < len(ord); i++ {
			if reach <= lo(ord[i]) {
				if cut < 0 || abs(2*i-len(ord)) < abs(2*cut-len(ord)) {
					cut = i
				}
			}
			reach = max(reach, hi(ord[i]))
		}
		if cut < 0 {
			continue
		}
		lr, rr := r, r
		if t := tiles[ord[cut]]; axis == 0 {
			lr.s2, rr.s1 = t.s1, t.s1
		} else {
			lr.t2, rr.t1 = t.t1, t.t1
		}
		// The other axis's order, split by side, stays sorted.
		for _, i := range ord[:cut] {
			left[i] = true
		}
		other := byAxis[1-axis]
		var l, rt [2][]int
		l[axis], rt[axis] = ord[:cut], ord[cut:]
		l[1-axis], rt[1-axis] = make([]int, 0, cut), make([]int, 0, len(ord)-cut)
		for _, i := range other {
			if left[i] {
				l[1-axis] = append(l[1-axis], i)
			} else {
				rt[1-axis] = append(rt[1-axis], i)
			}
		}
		for _, i := range ord[:cut] {
			left[i] = false
		}
		if err := partition(tiles, keys, lr, l, left); err != nil {
			return err
		}
		return partition(tiles, keys, rr, rt, left)
	}
	first := slices.Min(byAxis[0])
	return fmt.Errorf("region %v: its %d tiles (the first is tile %d) overlap or leave a gap", r, len(byAxis[0]), first+1)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
