package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/accountant"
	"github.com/bernamp/bernamp/check"
	"github.com/bernamp/bernamp/figure"
)

// The fuzz targets of the parsers of the command line and of the files it
// reads. Their seed corpora are in testdata/fuzz/<target>/ (and in the
// f.Add calls); .ci/run fuzzes each briefly.

// fuzzMaxValues bounds the values a fuzzed list may expand to: a range of
// up to hardMaxGrid values is valid but costs 800 MB.
const fuzzMaxValues = 10_000

// bigRange reports whether s holds a range start:stop:step of more than
// fuzzMaxValues values, which the fuzz targets skip.
func bigRange(s string) bool {
	for _, f := range strings.Split(s, ",") {
		parts := strings.Split(f, ":")
		if len(parts) != 3 {
			continue
		}
		var x [3]float64
		for j, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil {
				return false // not a range the parsers expand
			}
			x[j] = v
		}
		if n := (x[1] - x[0]) / x[2]; !(n <= fuzzMaxValues) && x[2] > 0 && x[1] >= x[0] {
			return true
		}
	}
	return false
}

// FuzzParseRange checks the list and range parsers of the axis flags: no
// panic; a list parses to its values; a range start:stop:step gives at
// least one value, strictly increasing, starting at start (to the 12
// digits values are rounded to) and not beyond stop; integer ranges step
// exactly.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"1", "1,2,4", "0.1:0.5:0.1", "0:1e9:1", "1:0:1", "1:2:0", "-0", "NaN", "1e309",
		"", " , ", "１", "0:Inf:1", "1:1.000000000001:1e-15", "-9223372036854775808:9223372036854775807:1", "3:1:-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if bigRange(s) {
			t.Skip()
		}
		vs, err := parseFloats(s)
		if err == nil && strings.Contains(s, ":") {
			parts := strings.Split(strings.TrimSpace(s), ":")
			start, _ := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
			stop, _ := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
			if len(vs) == 0 || len(vs) > hardMaxGrid {
				t.Fatalf("%q: %d values", s, len(vs))
			}
			if r := roundDigits(start); vs[0] != r {
				t.Errorf("%q: first value %v, want start %v", s, vs[0], r)
			}
			for i, v := range vs {
				if math.IsNaN(v) || math.IsInf(v, 0) || v > stop+rangeTol*math.Abs(stop)+1e-300 && v != roundDigits(stop) {
					t.Errorf("%q: value %d is %v, beyond stop %v", s, i, v, stop)
				}
				if i > 0 && v <= vs[i-1] {
					t.Errorf("%q: values %v, %v do not increase", s, vs[i-1], v)
				}
			}
		}
		is, err := parseInts(s)
		if err == nil && strings.Contains(s, ":") {
			parts := strings.Split(strings.TrimSpace(s), ":")
			start, _ := strconv.Atoi(strings.TrimSpace(parts[0]))
			stop, _ := strconv.Atoi(strings.TrimSpace(parts[1]))
			step, _ := strconv.Atoi(strings.TrimSpace(parts[2]))
			if len(is) == 0 {
				t.Fatalf("%q: no values", s)
			}
			// The values run from start to the last one within a step of stop.
			if last := is[len(is)-1]; is[0] != start || last > stop || uint64(stop)-uint64(last) >= uint64(step) {
				t.Errorf("%q: %d values from %d to %d", s, len(is), is[0], last)
			}
			for i := 1; i < len(is); i++ {
				if is[i]-is[i-1] != step {
					t.Fatalf("%q: values %d, %d are not a step %d apart", s, is[i-1], is[i], step)
				}
			}
		}
	})
}

// roundDigits rounds v to rangeDigits significant digits, as ranges do.
func roundDigits(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', rangeDigits, 64), 64)
	return r
}

// FuzzGrid checks newGrid and parseRanges on any flag values: no panic;
// an error is a usage error (exit 2); an accepted grid has the product of
// the list lengths as its size, at most hardMaxGrid, and every point in
// the domain (check.Point) with d k <= 2^53; accepted ranges satisfy
// 0 < lo < hi < 1.
func FuzzGrid(f *testing.F) {
	f.Add("1", "1", "0.1", "5", "1", "0.1:0.9")
	f.Add("1,2,3", "1:4:1", "0.01,0.1,0.3", "50", "0.1:5:0.1", "0.1:0.9,0.2:0.8")
	f.Add("94906266", "94906266", "0.1", "5", "1", "0:1")
	f.Add("0", "-1", "0.5", "1", "NaN", "NaN:0.5")
	f.Add("9223372036854775807", "1", "5e-324", "1e308", "1.7976931348623157e308", "0.5:0.5")
	f.Fuzz(func(t *testing.T, d, k, c, alpha, eps, ranges string) {
		if bigRange(d) || bigRange(k) || bigRange(c) || bigRange(alpha) || bigRange(eps) {
			t.Skip()
		}
		g, err := newGrid(gridFlags{d: d, k: k, c: c, alpha: alpha, eps: eps}, true)
		var uerr usageError
		if err != nil && !errors.As(err, &uerr) {
			t.Fatalf("newGrid: %v is not a usage error", err)
		}
		if err == nil {
			if want := len(g.d) * len(g.k) * len(g.c) * len(g.alpha) * len(g.eps); g.n != want || g.n < 1 || g.n > hardMaxGrid {
				t.Fatalf("grid of %d points, want %d", g.n, want)
			}
			for _, i := range []int{0, g.n / 2, g.n - 1} {
				p := g.at(i)
				if err := check.Point(p.D, p.K, p.C, p.Alpha, p.Eps); err != nil || p.D > maxN/p.K {
					t.Fatalf("point %d %+v: %v (d k <= 2^53: %v)", i, p, err, p.D <= maxN/p.K)
				}
			}
		}
		rs, err := parseRanges(ranges)
		if err != nil && !errors.As(err, &uerr) {
			t.Fatalf("parseRanges: %v is not a usage error", err)
		}
		for _, r := range rs {
			if !(0 < r.Lo && r.Lo < r.Hi && r.Hi < 1) {
				t.Fatalf("parseRanges(%q) accepted %v", ranges, r)
			}
		}
	})
}

// FuzzGridFile checks readGridFile on any file content: no panic; a bad
// file is a usage error (exit 2) naming the file on one line; an accepted
// file has a known command and tol, and its axes go through newGrid
// without a panic.
func FuzzGridFile(f *testing.F) {
	for _, s := range []string{
		`{"command": "bounds", "d": 1, "k": [1, 2], "c": "0.1", "alpha": 5, "eps": "0.5,1"}`,
		`{"d": 1, "k": 1, "c": 0.1, "alpha": 5, "eps": "0.1:5:0.1", "tol": 1e-9, "timeout": "400ms", "method": "reduced", "certify": true}`,
		`{}`, ``, `{"d": null}`, `{"d": {"a": 1}}`, `{"d": [[1]]}`, `{"d": ["1", "x"]}`, `{"alpha": 1e309}`, "\ufeff{}", `{"d":1}{"d":2}`,
	} {
		f.Add([]byte(s))
	}
	for _, name := range []string{"fig1.json", "fig2.json", "fig3.json"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "grids", name)); err == nil {
			f.Add(b)
		}
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "g.json")
		if err := os.WriteFile(path, b, 0o666); err != nil {
			t.Fatal(err)
		}
		cmd, o, err := readGridFile(path)
		if err != nil {
			var uerr usageError
			if !errors.As(err, &uerr) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want a usage error of one line", err)
			}
			return
		}
		if cmd != "post" && cmd != "bounds" {
			t.Fatalf("command %q", cmd)
		}
		gf := o.grid
		if bigRange(gf.d) || bigRange(gf.k) || bigRange(gf.c) || bigRange(gf.alpha) || bigRange(gf.eps) {
			return
		}
		newGrid(gf, true)
	})
}

// FuzzReadRows checks readCSVRows, the reader of --resume and merge, on
// any file content: no panic, errors on one line, and every row it accepts
// has the fields of the header with finite lb, ub, post, post_upper and
// seconds and a known status, so no corrupted value is copied to the
// output.
func FuzzReadRows(f *testing.F) {
	const head = "d,k,c,alpha,eps,lb,ub,post,post_upper,status,seconds\n"
	const row = "1,1,0.1,5,1,0.7389217505757847,1,0.7389217505757847,1,bounds,0.0000\n"
	for _, s := range []string{head + row, head + row + row[:20], head, "", row, head + strings.Replace(row, "bounds", "proved", 1),
		head + strings.Replace(row, ",1,bounds", ",NaN,bounds", 1), head + "1,1\n", "a,b\n1,2\n", head + "1,\"1\n", "\x00\xff\n"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		path := filepath.Join(dir, "rows.csv")
		if err := os.WriteFile(path, b, 0o666); err != nil {
			t.Fatal(err)
		}
		rows, _, err := readCSVRows(path, false)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q is not one line", err)
			}
			return
		}
		for _, r := range rows {
			if len(r) != len(header) {
				t.Fatalf("row %q: %d fields", r, len(r))
			}
			if err := checkValues(r); err != nil {
				t.Fatalf("row %q accepted: %v", r, err)
			}
		}
	})
}

// FuzzReadCurve checks accountant.Read, the one reader of curves (curve
// --in, calibrate --in, the calculator page), on any content, CSV or JSON:
// no panic, and an accepted curve has strictly increasing finite orders > 1
// and nondecreasing eps >= 0 (+Inf allowed), one per order, with a warning
// for each order the monotone repair lowered.
func FuzzReadCurve(f *testing.F) {
	for _, s := range []string{"alpha,eps\n2,0.5\n4,1\n", "# comment\n1.5,0.1\n", "", "alpha,eps\n", "1,0.5\n", "2,NaN\n", "2,1\n4,0.5\n",
		"2,1\n2,1\n", "2,1,3\n", "alpha,eps\n2,0.5\n4", "2,\"1\n", "1e309,1\n", "1.0000000001,1e-300\n", "2,inf\n3,1\n",
		`{"orders": [2, 4], "rdp": [1, Infinity]}`, `{"orders": [2, 2], "rdp": [1, 1]}`, `{"orders": [2], "rdp": ["inf"]}`, `{"orders": [2, 3], "rdp": [1]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, warnings, err := accountant.Read(bytes.NewReader(b))
		if err != nil {
			if c.Orders != nil || warnings != nil {
				t.Fatalf("error %v with a curve or warnings", err)
			}
			return
		}
		if len(c.Orders) == 0 || len(c.Orders) != len(c.Eps) {
			t.Fatalf("%d orders, %d eps", len(c.Orders), len(c.Eps))
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted curve invalid: %v", err)
		}
		for i := range c.Orders {
			if check.Alpha(c.Orders[i]) != nil || !(c.Eps[i] >= 0) {
				t.Fatalf("order %v eps %v accepted", c.Orders[i], c.Eps[i])
			}
			if i > 0 && (c.Orders[i] <= c.Orders[i-1] || c.Eps[i] < c.Eps[i-1]) {
				t.Fatalf("orders %v eps %v: not increasing", c.Orders, c.Eps)
			}
		}
		if len(warnings) > len(c.Orders)-1 {
			t.Fatalf("%d warnings for %d orders", len(warnings), len(c.Orders))
		}
	})
}

// FuzzReadFigure checks figure.ReadCSV, the reader of plot --in, on any
// content: no panic, and accepted rows are points of the domain with
// finite values and a known status.
func FuzzReadFigure(f *testing.F) {
	const head = "d,k,c,alpha,eps,lb,ub,post,post_upper,status,seconds\n"
	const row = "1,1,0.1,5,1,0.7389217505757847,1,0.7389217505757847,1,bounds,0.0000\n"
	for _, s := range []string{head + row, head, "", head + row[:30], head + strings.Replace(row, "0.1", "0.7", 1), "d,k\n1,1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		rows, err := figure.ReadCSV(bytes.NewReader(b))
		if err != nil {
			return
		}
		for _, r := range rows {
			if check.Point(r.D, r.K, r.C, r.Alpha, r.Eps) != nil || slices.ContainsFunc([]float64{r.LB, r.UB, r.Post, r.PostUpper}, func(v float64) bool {
				return math.IsNaN(v) || math.IsInf(v, 0)
			}) {
				t.Fatalf("row %+v accepted", r)
			}
		}
	})
}
