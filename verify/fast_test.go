package verify

import (
	"encoding/csv"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

// randFloat returns a float64 of random sign and exponent over the whole
// range (subnormals included), or one of the extremes.
func randFloat(rng *rand.Rand) float64 {
	extremes := []float64{0, 1, -1, math.MaxFloat64, math.SmallestNonzeroFloat64, 0x1p-1022, 1.0 / 3, 0.1, 1e300, 1e-300, 2, 0.5}
	if rng.IntN(8) == 0 {
		x := extremes[rng.IntN(len(extremes))]
		if rng.IntN(2) == 0 {
			x = -x
		}
		return x
	}
	var e int
	switch rng.IntN(3) {
	case 0:
		e = rng.IntN(2098) - 1074
	case 1:
		e = rng.IntN(80) - 40
	default:
		e = rng.IntN(6) - 3
	}
	x := math.Ldexp(1+rng.Float64(), e)
	if rng.IntN(2) == 0 {
		x = -x
	}
	return x
}

func randFi(rng *rand.Rand) fi {
	a, b := randFloat(rng), randFloat(rng)
	if rng.IntN(3) == 0 {
		b = a
	}
	return fi{min(a, b), max(a, b)}
}

// contains says whether the exact rational r is in x.
func contains(x fi, r *big.Rat) bool {
	if math.IsInf(x.lo, 1) || math.IsInf(x.hi, -1) {
		return false
	}
	if !math.IsInf(x.lo, -1) && new(big.Rat).SetFloat64(x.lo).Cmp(r) > 0 {
		return false
	}
	if !math.IsInf(x.hi, 1) && new(big.Rat).SetFloat64(x.hi).Cmp(r) < 0 {
		return false
	}
	return true
}

// opMisses runs the float64 interval operations on random intervals and
// counts the results that miss an exact (big.Rat) value at a corner: the
// range of +, -, *, / (by a positive interval) and x^2 is spanned by its
// corners (and 0 for a square across 0).
func opMisses(t *testing.T, trials int) int {
	rng := rand.New(rand.NewPCG(7, 31))
	misses := 0
	rat := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	for range trials {
		a, b := randFi(rng), randFi(rng)
		for _, op := range []string{"add", "sub", "mul", "div", "sqr"} {
			var got fi
			ok := func() (ok bool) {
				defer func() {
					if r := recover(); r != nil {
						if !isArith(r) {
							panic(r)
						}
						ok = false
					}
				}()
				switch op {
				case "add":
					got = a.add(b)
				case "sub":
					got = a.sub(b)
				case "mul":
					got = a.mul(b)
				case "div":
					bb := fi{math.Abs(b.lo), math.Abs(b.hi)}
					bb = fi{min(bb.lo, bb.hi), max(bb.lo, bb.hi)}
					if bb.lo == 0 {
						return false
					}
					b = bb
					got = a.div(b)
				case "sqr":
					got = a.sqr()
				}
				return true
			}()
			if !ok {
				continue
			}
			for _, x := range []float64{a.lo, a.hi} {
				for _, y := range []float64{b.lo, b.hi} {
					var r *big.Rat
					switch op {
					case "add":
						r = new(big.Rat).Add(rat(x), rat(y))
					case "sub":
						r = new(big.Rat).Sub(rat(x), rat(y))
					case "mul":
						r = new(big.Rat).Mul(rat(x), rat(y))
					case "div":
						r = new(big.Rat).Quo(rat(x), rat(y))
					case "sqr":
						r = new(big.Rat).Mul(rat(x), rat(x))
					}
					if !contains(got, r) {
						misses++
						if misses <= 3 && !testNoWiden {
							t.Errorf("%s [%g, %g] [%g, %g] = [%g, %g] misses %s", op, a.lo, a.hi, b.lo, b.hi, got.lo, got.hi, r.FloatString(30))
						}
					}
				}
			}
			if (op == "sqr" || op == "mul") && got.lo > 0 && (a.lo <= 0 && a.hi >= 0) {
				misses++
			}
		}
	}
	return misses
}

func TestFloatIntervalOps(t *testing.T) {
	if m := opMisses(t, 5000); m != 0 {
		t.Errorf("%d misses", m)
	}
	// Directed ends on an inexact quotient and an underflowing product.
	third := pt64(1).div(pt64(3))
	if !(third.lo < 1.0/3 || third.hi > 1.0/3) || !contains(third, big.NewRat(1, 3)) {
		t.Errorf("1/3 in [%g, %g]", third.lo, third.hi)
	}
	if p := pt64(1e-200).mul(pt64(1e-200)); !(p.lo == 0 && p.hi > 0) {
		t.Errorf("1e-400 in [%g, %g]", p.lo, p.hi)
	}
	if p := pt64(1e200).mul(pt64(1e200)); !(p.lo == math.MaxFloat64 && math.IsInf(p.hi, 1)) {
		t.Errorf("1e400 in [%g, %g]", p.lo, p.hi)
	}
}

// expLogMisses compares the float64 enclosures of exp and log (exp64.go)
// with the series enclosures of arith.go on random and extreme arguments:
// the float64 enclosure must hold the series one. It also returns the
// largest relative width of the float64 enclosures seen.
func expLogMisses(t *testing.T, trials int) (misses int, worstWidth float64) {
	rng := rand.New(rand.NewPCG(11, 13))
	check := func(name string, x, lo, hi float64, ref ival) {
		if new(big.Float).SetFloat64(lo).Cmp(ref.lo) > 0 || new(big.Float).SetFloat64(hi).Cmp(ref.hi) < 0 {
			misses++
			if !testNoWiden && misses <= 3 {
				t.Errorf("%s(%v): [%v, %v] misses [%s, %s]", name, x, lo, hi, ref.lo.Text('g', 30), ref.hi.Text('g', 30))
			}
		}
		if r, _ := ref.hi.Float64(); r != 0 && !math.IsInf(hi, 1) && (lo > 0 || hi < 0) {
			worstWidth = max(worstWidth, (hi-lo)/math.Abs(r))
		}
	}
	xs := []float64{-700, 709, -699.9999999, 708.99999, 0, 1e-300, -1e-300, 1e-17, -1e-17, 0.5, -0.5, 1, -1, 2, 88, -88, 354.8, -354.8, 0x1p-1074,
		0.6931471805599453, 0.6931471805599454, -0.6931471805599453, 709 * 0.6931471805599453 / 0.6931471805599453, 1.3862943611198906, -745, 710, 1000, -1000}
	for i := range trials {
		var x float64
		switch {
		case i < len(xs):
			x = xs[i]
		case i%4 == 0:
			x = -700 + 1409*rng.Float64()
		case i%4 == 1:
			x = (2*rng.Float64() - 1) * math.Ldexp(1, -rng.IntN(60))
		case i%4 == 2: // near multiples of log 2 (the reduction's edges)
			x = float64(rng.IntN(2000)-1000)*0.6931471805599453 + (2*rng.Float64()-1)*1e-12
		default:
			x = 40 * (2*rng.Float64() - 1)
		}
		if x < -700 || x > 709 {
			lo, hi := expLo(x), expHi(x)
			ok := x < -700 && lo == 0 && hi > 0 && hi < 1e-303 || x > 709 && lo > 8e307 && math.IsInf(hi, 1)
			if !ok {
				misses++
				t.Errorf("exp(%v) = [%v, %v] out of range", x, lo, hi)
			}
			continue
		}
		ref := pointIval(new(big.Float).SetFloat64(x)).exp()
		check("exp", x, expLo(x), expHi(x), ref)
	}
	ys := []float64{1, math.SmallestNonzeroFloat64, 0x1p-1022, math.MaxFloat64, 1 + 0x1p-52, 1 - 0x1p-53, 0.5, 2, 1e-300, 1e300, math.E, 0.9999999, 1.0000001,
		0.7071067811865476, 0.7071067811865475, 1.4142135623730951, 1.414213562373095, 3e-320, 4}
	for i := range trials {
		var y float64
		switch {
		case i < len(ys):
			y = ys[i]
		case i%3 == 0:
			y = math.Ldexp(1+rng.Float64(), rng.IntN(2098)-1074)
		case i%3 == 1:
			y = 1 + (2*rng.Float64()-1)*math.Ldexp(1, -rng.IntN(50))
		default:
			y = 10 * rng.Float64()
		}
		if y <= 0 {
			continue
		}
		ref := pointIval(new(big.Float).SetFloat64(y)).log()
		check("log", y, logLo(y), logHi(y), ref)
	}
	return misses, worstWidth
}

// TestExpLog64: the float64 exp and log hold the series enclosures on
// random and extreme arguments, and are narrow (at most 2^-46 relative
// wide; seen: up to about 9 ulp for exp, 18 for log just outside 1 +-
// 1/256, where log c and 2 atanh z cancel to half).
func TestExpLog64(t *testing.T) {
	m, worst := expLogMisses(t, 20000)
	if m != 0 {
		t.Errorf("%d misses", m)
	}
	t.Logf("widest float64 exp or log enclosure: %.3g relative (%.2f ulp)", worst, worst/0x1p-52)
	if worst > 0x1p-46 {
		t.Errorf("an enclosure is %.3g wide, relative: more than 2^-46", worst)
	}
	// The constants: ln2Hi + ln2Lo holds log 2.
	lo, hi := ln2(prec)
	sum := fi{ln2Hi, ln2Hi}.add(ln2Lo)
	if new(big.Float).SetFloat64(sum.lo).Cmp(lo) > 0 || new(big.Float).SetFloat64(sum.hi).Cmp(hi) < 0 {
		t.Errorf("ln2Hi + ln2Lo misses log 2")
	}
	h := ln2Hi
	if h*0x1p33 != math.Trunc(h*0x1p33) {
		t.Errorf("ln2Hi has more than 33 significant bits")
	}
}

// TestFastEnclosuresCSV checks the float64 exp and log against the 60-digit
// mpmath references of testdata/verify/arith.csv.
func TestFastEnclosuresCSV(t *testing.T) {
	f, err := os.Open("../testdata/verify/arith.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, row := range rows[1:] {
		x, _ := strconv.ParseFloat(row[1], 64)
		ref, _, err := big.ParseFloat(row[3], 10, 300, big.ToNearestEven)
		if err != nil {
			t.Fatal(err)
		}
		var got fi
		switch row[0] {
		case "exp":
			if x < -700 || x > 709 {
				continue
			}
			got = pt64(x).exp()
		case "log":
			got = pt64(x).log()
		default:
			continue
		}
		n++
		r, _ := ref.Rat(nil)
		// The reference is within 1e-55 relative; the enclosure is about
		// 2^-46 wide at most, so containment of the rounded reference suffices.
		if !contains(got, r) {
			t.Errorf("%s(%s): [%v, %v] misses %s", row[0], row[1], got.lo, got.hi, row[3])
		}
	}
	if n < 20 {
		t.Errorf("only %d rows", n)
	}
}

// TestBrokenFastPathCaught: with the widening removed (testNoWiden), the
// containment tests above must fail.
func TestBrokenFastPathCaught(t *testing.T) {
	testNoWiden = true
	defer func() { testNoWiden = false }()
	if m := opMisses(t, 2000); m == 0 {
		t.Errorf("interval operations without widening: no miss found")
	}
	if m, _ := expLogMisses(t, 500); m == 0 {
		t.Errorf("exp and log without widening: no miss found")
	}
}

// TestLogBig: ln2Fi holds log 2, and logBig (log of a big.Float of any
// exponent, as log m + e log 2) holds the series enclosure of arith.go.
func TestLogBig(t *testing.T) {
	lo, hi := ln2(prec)
	if new(big.Float).SetFloat64(ln2Fi.lo).Cmp(lo) > 0 || new(big.Float).SetFloat64(ln2Fi.hi).Cmp(hi) < 0 {
		t.Errorf("ln2Fi [%v, %v] misses log 2 in [%s, %s]", ln2Fi.lo, ln2Fi.hi, lo.Text('g', 30), hi.Text('g', 30))
	}
	rng := rand.New(rand.NewPCG(17, 19))
	for range 2000 {
		x := new(big.Float).SetPrec(prec).SetFloat64(1 + rng.Float64())
		x.SetMantExp(x, rng.IntN(4_000_000)-2_000_000)
		ref := pointIval(x).log()
		got := logBig(pointIval(x))
		if new(big.Float).SetFloat64(got.lo).Cmp(ref.lo) > 0 || new(big.Float).SetFloat64(got.hi).Cmp(ref.hi) < 0 {
			t.Errorf("log(%s): [%v, %v] misses [%s, %s]", x.Text('g', 10), got.lo, got.hi, ref.lo.Text('g', 20), ref.hi.Text('g', 20))
		}
	}
}

// TestExactDecimal: exactDecimal (the parser's fast path for tile ends)
// agrees with big.Rat on every string it accepts, and accepts the dyadic
// decimals a solver writes.
func TestExactDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 29))
	strs := []string{"0", "-0", "+0", "1", "-4", "0.5", "-1.0078125", "1.00390625", "0.1", "-0.3", "1e3", "1.", ".5", "-", "", "1.2.3",
		"123456789012345678", "1234567890123456789", "9007199254740993", "9007199254740992", "0.000000000000000001", "3.814697265625e-06",
		"0.000003814697265625", "-18.6", "0x10", " 1", "1 "}
	for range 20000 {
		var s string
		switch rng.IntN(3) {
		case 0: // dyadic: m / 2^e written exactly, as the solver's ends
			s = strconv.FormatFloat(float64(rng.Int64N(1<<20)-1<<19)/float64(int64(1)<<rng.IntN(12)), 'f', -1, 64)
		case 1: // decimal of a few digits
			s = strconv.FormatFloat((2*rng.Float64()-1)*math.Pow(10, float64(rng.IntN(8))), 'f', rng.IntN(6), 64)
		default:
			s = strconv.FormatFloat(rng.NormFloat64()*1e3, 'f', -1, 64)
		}
		strs = append(strs, s)
	}
	accepted := 0
	for _, s := range strs {
		f, ok := exactDecimal(s)
		r, isRat := new(big.Rat).SetString(s)
		if !ok {
			continue
		}
		accepted++
		if !isRat || !certfile.IsDecimal(s) {
			t.Errorf("exactDecimal accepts %q, which is not a decimal", s)
			continue
		}
		if g, exact := r.Float64(); !exact || g != f {
			t.Errorf("exactDecimal(%q) = %v, exactly; big.Rat: %v (exact %v)", s, f, g, exact)
		}
	}
	for _, s := range []string{"-1.0078125", "1.00390625", "-4", "0.000003814697265625"} {
		if _, ok := exactDecimal(s); !ok {
			t.Errorf("exactDecimal(%q) is not taken", s)
		}
	}
	if accepted < 5000 {
		t.Errorf("only %d of %d strings taken", accepted, len(strs))
	}
}

// TestUpDown: up and dn are the next float64 above and below (math's
// Nextafter, an independent implementation) on random bit patterns and
// the extremes.
func TestUpDown(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, -math.MaxFloat64, 1, -1,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 0x1p-1022, -0x1p-1022}
	rng := rand.New(rand.NewPCG(31, 37))
	for range 100_000 {
		xs = append(xs, math.Float64frombits(rng.Uint64()))
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	for _, x := range xs {
		if u, want := up(x), math.Nextafter(x, math.Inf(1)); !same(u, want) {
			t.Errorf("up(%v) = %v, want %v", x, u, want)
		}
		if d, want := dn(x), math.Nextafter(x, math.Inf(-1)); !same(d, want) {
			t.Errorf("dn(%v) = %v, want %v", x, d, want)
		}
	}
}

// TestTilingKeys: checkTiling gives the same verdict on random split-tree
// tilings (honest, and with a tile removed, duplicated or shrunk) whether
// the ends are exact float64 (keys compared as float64) or only rationals
// (keys by rank).
func TestTilingKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	mkEnd := func(v float64, exact bool) end {
		switch {
		case math.IsInf(v, -1):
			return end{inf: -1}
		case math.IsInf(v, 1):
			return end{inf: 1}
		}
		return end{r: new(big.Rat).SetFloat64(v), f: v, exact: exact}
	}
	cutAt := func(lo, hi float64) float64 {
		switch {
		case math.IsInf(lo, -1) && math.IsInf(hi, 1):
			return 0
		case math.IsInf(lo, -1):
			return hi - max(1, math.Abs(hi))
		case math.IsInf(hi, 1):
			return lo + max(1, math.Abs(lo))
		}
		return (lo + hi) / 2
	}
	for trial := range 300 {
		boxes := [][4]float64{{math.Inf(-1), 0, math.Inf(-1), math.Inf(1)}}
		for range 1 + rng.IntN(40) {
			k := rng.IntN(len(boxes))
			b := boxes[k]
			a, c := b, b
			if rng.IntN(2) == 0 {
				m := cutAt(b[0], b[1])
				a[1], c[0] = m, m
			} else {
				m := cutAt(b[2], b[3])
				a[3], c[2] = m, m
			}
			boxes[k] = a
			boxes = append(boxes, c)
		}
		want := true
		switch trial % 4 {
		case 1:
			if len(boxes) > 1 {
				boxes, want = slices.Delete(boxes, 0, 1), false
			}
		case 2:
			boxes, want = append(boxes, boxes[rng.IntN(len(boxes))]), false
		case 3:
			k := rng.IntN(len(boxes))
			if b := boxes[k]; !math.IsInf(b[1], 0) && !math.IsInf(b[0], 0) {
				boxes[k][1], want = (b[0]+b[1])/2, false
			}
		}
		for _, exact := range []bool{true, false} {
			tiles := make([]box, len(boxes))
			for i, b := range boxes {
				tiles[i] = box{mkEnd(b[0], exact), mkEnd(b[1], exact), mkEnd(b[2], exact), mkEnd(b[3], exact)}
			}
			if err := checkTiling(tiles); (err == nil) != want {
				t.Errorf("trial %d, exact %v: %d tiles, want accepted %v, got %v", trial, exact, len(tiles), want, err)
			}
		}
	}
}
