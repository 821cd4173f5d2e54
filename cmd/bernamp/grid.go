package main

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/internal/valuelist"
)

const (
	// maxGrid is the largest grid run without --force.
	maxGrid = 100_000
	// hardMaxGrid is the largest grid run at all: Map keeps a slot per point.
	hardMaxGrid = 100_000_000
	// rangeTol and rangeDigits are those of the value lists.
	rangeTol    = valuelist.RangeTol
	rangeDigits = valuelist.RangeDigits
	// maxN is the largest n = d k of a grid point: the domain of the
	// closed forms of package bounds.
	maxN = 1 << 53
)

// gridBytesPerPoint is what a run holds per grid point, by estimate: the
// index, the pool's slot and schedule, the cost for the schedule (about 50
// bytes), rounded up.
const gridBytesPerPoint = 64

// parseBytes parses a memory size: an integer number of bytes, or a number
// followed by KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers
// of 1024). It must be at least 1 MiB and at most 2^62 bytes.
func parseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q is not a size such as 1GiB, 512MB or 1000000", s)
	}
	b := v * mult
	if !(b >= 1<<20 && b <= 1<<62) {
		return 0, fmt.Errorf("%q is %.3g bytes, must be between 1MiB and 2^62 bytes", s, b)
	}
	return int64(b), nil
}

// usageError is an error in the command line: exit status 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// flagError names the flag a value came from: "--c: c is 0.7, must be ...".
func flagError(flag string, err error) error {
	return usagef("--%s: %v", flag, err)
}

// parseFloats parses a comma list or a range of floats (package valuelist),
// at most hardMaxGrid values.
func parseFloats(s string) ([]float64, error) { return valuelist.Floats(s, hardMaxGrid) }

// parseInts parses a comma list or a range of integers (package valuelist),
// at most hardMaxGrid values.
func parseInts(s string) ([]int, error) { return valuelist.Ints(s, hardMaxGrid) }

// gridFlags holds the raw values of the grid flags.
type gridFlags struct {
	d, k, c, alpha, eps string
}

// grid is the cartesian product of the five value lists, in the order d, k,
// c, alpha, eps with eps varying fastest. Points are computed from their
// index, so a large grid costs no memory.
type grid struct {
	d, k          []int
	c, alpha, eps []float64
	n             int            // number of points
	ranges        []bounds.Range // --range: per-coordinate ranges; d and c are then len(ranges) and 0
}

// at returns point i of the grid, 0 <= i < g.n.
func (g *grid) at(i int) bernamp.Params {
	var p bernamp.Params
	i, p.Eps = i/len(g.eps), g.eps[i%len(g.eps)]
	i, p.Alpha = i/len(g.alpha), g.alpha[i%len(g.alpha)]
	i, p.C = i/len(g.c), g.c[i%len(g.c)]
	i, p.K = i/len(g.k), g.k[i%len(g.k)]
	p.D = g.d[i]
	return p
}

// newGrid parses and validates every value of every flag, and the size of
// the grid, so that no work starts on an invalid grid.
func newGrid(f gridFlags, force bool) (*grid, error) {
	g := new(grid)
	ints := []struct {
		name string
		s    string
		dst  *[]int
		chk  func(int) error
	}{
		{"d", f.d, &g.d, check.D},
		{"k", f.k, &g.k, check.K},
	}
	for _, x := range ints {
		vs, err := parseInts(x.s)
		if err != nil {
			return nil, flagError(x.name, err)
		}
		for _, v := range vs {
			if err := x.chk(v); err != nil {
				return nil, flagError(x.name, err)
			}
		}
		*x.dst = vs
	}
	floats := []struct {
		name string
		s    string
		dst  *[]float64
		chk  func(float64) error
	}{
		{"c", f.c, &g.c, check.C},
		{"alpha", f.alpha, &g.alpha, check.Alpha},
		{"eps", f.eps, &g.eps, check.Eps},
	}
	for _, x := range floats {
		vs, err := parseFloats(x.s)
		if err != nil {
			return nil, flagError(x.name, err)
		}
		for _, v := range vs {
			if err := x.chk(v); err != nil {
				return nil, flagError(x.name, err)
			}
		}
		*x.dst = vs
	}
	// n = d k is at most maxN for every pair: the closed forms count the
	// outputs of B_k in float64 (bounds.Lower panics beyond 2^53).
	if d, k := slices.Max(g.d), slices.Max(g.k); d > maxN/k { // d k > maxN, without overflow
		return nil, usagef("--d, --k: d k is %d*%d, must be at most 2^53", d, k)
	}
	// Each list has at most hardMaxGrid values, so the float product is
	// exact up to well past the limits and cannot overflow.
	size := float64(len(g.d)) * float64(len(g.k)) * float64(len(g.c)) *
		float64(len(g.alpha)) * float64(len(g.eps))
	switch {
	case size > hardMaxGrid:
		return nil, usagef("grid has %.0f points, more than the limit of %d even with --force", size, hardMaxGrid)
	case size > maxGrid && !force:
		return nil, usagef("grid has %.0f points, more than the limit of %d; use --force to run it", size, maxGrid)
	}
	g.n = int(size)
	return g, nil
}

// parseRanges parses --range lo:hi,lo:hi,...: one range per coordinate.
func parseRanges(s string) ([]bounds.Range, error) {
	var rs []bounds.Range
	for l, f := range strings.Split(s, ",") {
		lo, hi, ok := strings.Cut(strings.TrimSpace(f), ":")
		if !ok {
			return nil, usagef("--range: coordinate %d: %q must be lo:hi", l+1, f)
		}
		var r bounds.Range
		var err error
		if r.Lo, err = valuelist.Float(lo); err != nil {
			return nil, usagef("--range: coordinate %d: %v", l+1, err)
		}
		if r.Hi, err = valuelist.Float(hi); err != nil {
			return nil, usagef("--range: coordinate %d: %v", l+1, err)
		}
		rs = append(rs, r)
	}
	if err := bounds.CheckRanges(rs); err != nil {
		return nil, usagef("--range: %v", err)
	}
	return rs, nil
}
