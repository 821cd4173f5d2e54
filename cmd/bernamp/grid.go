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
)

const (
	// maxGrid is the largest grid run without --force.
	maxGrid = 100_000
	// hardMaxGrid is the largest grid run at all: Map keeps a slot per point.
	hardMaxGrid = 100_000_000
	// rangeTol is the relative slack with which a range includes its stop.
	rangeTol = 1e-9
	// rangeDigits is the number of significant digits range values are
	// rounded to, so that 0.1:0.5:0.1 gives 0.3 and not 0.30000000000000004.
	rangeDigits = 12
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

// parseFloats parses a comma list or a start:stop:step range of floats.
// It does not check the domain of the values, only that they are numbers.
func parseFloats(s string) ([]float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty list")
	}
	if strings.Contains(s, ":") {
		return parseFloatRange(s)
	}
	var vs []float64
	for _, f := range strings.Split(s, ",") {
		v, err := parseFloat(f)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

func parseFloat(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty value in list")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return v, nil
}

// rangeParts splits "start:stop:step" into its three fields.
func rangeParts(s string) ([3]string, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return [3]string{}, fmt.Errorf("range %q must be start:stop:step", s)
	}
	return [3]string{parts[0], parts[1], parts[2]}, nil
}

// parseFloatRange expands start:stop:step into start + i*step, i = 0, 1, ...,
// up to stop (included when within rangeTol relative), each rounded to
// rangeDigits significant digits.
func parseFloatRange(s string) ([]float64, error) {
	parts, err := rangeParts(s)
	if err != nil {
		return nil, err
	}
	var x [3]float64
	for j, p := range parts {
		if x[j], err = parseFloat(p); err != nil {
			return nil, fmt.Errorf("range %q: %v", s, err)
		}
		if math.IsNaN(x[j]) || math.IsInf(x[j], 0) {
			return nil, fmt.Errorf("range %q: %v is not finite", s, x[j])
		}
	}
	start, stop, step := x[0], x[1], x[2]
	if !(step > 0) {
		return nil, fmt.Errorf("range %q: step is %v, must be > 0", s, step)
	}
	if stop < start {
		return nil, fmt.Errorf("range %q: stop %v is less than start %v", s, stop, start)
	}
	// slack: how far from stop a value may land and still count as stop.
	// The scale keeps it meaningful when stop is 0; the cap of half a step
	// keeps a fine range from gaining a value past stop.
	slack := math.Min(rangeTol*math.Max(math.Max(math.Abs(start), math.Abs(stop)), step), step/2)
	q := math.Floor((stop - start) / step)
	if q+1 > hardMaxGrid {
		return nil, fmt.Errorf("range %q has more than %d values", s, hardMaxGrid)
	}
	m := int(q)
	if start+float64(m+1)*step <= stop+slack {
		m++ // (stop-start)/step rounded down below an integer
	}
	vs := make([]float64, 0, m+1)
	for i := 0; i <= m; i++ {
		v := start + float64(i)*step
		if i > 0 && math.Abs(v-stop) <= slack { // start stays start: "0:1e-12:1000" is 0
			v = stop
		} else if v > stop {
			break // q rounded up past the last value
		}
		v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', rangeDigits, 64), 64)
		if len(vs) > 0 && v <= vs[len(vs)-1] {
			return nil, fmt.Errorf("range %q: step %v is too small for %d significant digits", s, step, rangeDigits)
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// parseInts parses a comma list or a start:stop:step range of integers.
func parseInts(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty list")
	}
	if strings.Contains(s, ":") {
		parts, err := rangeParts(s)
		if err != nil {
			return nil, err
		}
		var x [3]int
		for j, p := range parts {
			if x[j], err = parseInt(p); err != nil {
				return nil, fmt.Errorf("range %q: %v", s, err)
			}
		}
		start, stop, step := x[0], x[1], x[2]
		if step <= 0 {
			return nil, fmt.Errorf("range %q: step is %d, must be > 0", s, step)
		}
		if stop < start {
			return nil, fmt.Errorf("range %q: stop %d is less than start %d", s, stop, start)
		}
		// Written so that neither the count nor start + i*step overflows:
		// the span stop - start fits in a uint64, but span/step + 1 does
		// not when the span is 2^64 - 1 and the step 1.
		if (uint64(stop)-uint64(start))/uint64(step) >= hardMaxGrid {
			return nil, fmt.Errorf("range %q has more than %d values", s, hardMaxGrid)
		}
		vs := make([]int, (uint64(stop)-uint64(start))/uint64(step)+1)
		for i := range vs {
			vs[i] = start + i*step
		}
		return vs, nil
	}
	var vs []int
	for _, f := range strings.Split(s, ",") {
		v, err := parseInt(f)
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

func parseInt(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty value in list")
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return v, nil
}

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
		if r.Lo, err = parseFloat(lo); err != nil {
			return nil, usagef("--range: coordinate %d: %v", l+1, err)
		}
		if r.Hi, err = parseFloat(hi); err != nil {
			return nil, usagef("--range: coordinate %d: %v", l+1, err)
		}
		rs = append(rs, r)
	}
	if err := bounds.CheckRanges(rs); err != nil {
		return nil, usagef("--range: %v", err)
	}
	return rs, nil
}
