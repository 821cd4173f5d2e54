package rdp

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
)

// relTol is the accuracy asked of every curve value and conversion: each
// is rounded up by a margin far below it (a few ulps; for Laplace at b =
// 1e5, where logs of size 25 are summed, about 1e-13).
const relTol = 1e-12

func curveOf(t *testing.T, mech string, param float64, orders []float64) Curve {
	t.Helper()
	var (
		c   Curve
		err error
	)
	switch mech {
	case "gaussian":
		c, err = Gaussian(param, orders)
	case "laplace":
		c, err = Laplace(param, orders)
	case "rr":
		c, err = RandomizedResponse(param, orders)
	default:
		t.Fatalf("unknown mechanism %q", mech)
	}
	if err != nil {
		t.Fatalf("%s(%v): %v", mech, param, err)
	}
	return c
}

// upperWithin reports whether got is an upper bound on want (want is exact
// for the float64 inputs) and within relTol of it.
func upperWithin(got, want float64) bool {
	return got >= want && got <= want+relTol*math.Abs(want)+1e-300
}

// TestCurvesAgainstHighPrecision compares the mechanism curves with
// testdata/ref/rdp_curves.csv (mpmath, 60 digits, gen_rdp.py): every value
// must be at or above the exact one and within relTol of it.
func TestCurvesAgainstHighPrecision(t *testing.T) {
	t.Parallel()
	for _, rec := range testref.Rows(t, "../testdata/ref/rdp_curves.csv", 200) {
		param, alpha, want := testref.Float(t, rec[1]), testref.Float(t, rec[2]), testref.Float(t, rec[3])
		c := curveOf(t, rec[0], param, []float64{alpha})
		if got := c.Eps[0]; !upperWithin(got, want) {
			t.Errorf("%s(%v) at alpha %v: eps = %.17g, want %.17g rounded up (rel %.2g)", rec[0], param, alpha, got, want, (got-want)/want)
		}
	}
}

// TestToApproxAgainstHighPrecision converts mechanism curves on the
// default orders and compares with testdata/ref/rdp_convert.csv.
func TestToApproxAgainstHighPrecision(t *testing.T) {
	t.Parallel()
	for _, rec := range testref.Rows(t, "../testdata/ref/rdp_convert.csv", 70) {
		param, delta := testref.Float(t, rec[1]), testref.Float(t, rec[2])
		want, order := testref.Float(t, rec[4]), testref.Float(t, rec[5])
		conv, err := ParseConversion(rec[3])
		if err != nil {
			t.Fatal(err)
		}
		c := curveOf(t, rec[0], param, nil)
		got, err := ToApprox(c, delta, conv)
		if err != nil {
			t.Fatal(err)
		}
		if !upperWithin(got.Eps, want) {
			t.Errorf("%s(%v) delta %v %v: eps = %.17g, want %.17g rounded up (rel %.2g)", rec[0], param, delta, conv, got.Eps, want, (got.Eps-want)/want)
		}
		if want > 0 && got.Order != order {
			t.Errorf("%s(%v) delta %v %v: order %v, want %v", rec[0], param, delta, conv, got.Order, order)
		}
		if got.Delta != delta || c.Orders[got.Index] != got.Order {
			t.Errorf("%s(%v) delta %v %v: Delta %v, Index %d inconsistent with Order %v", rec[0], param, delta, conv, got.Delta, got.Index, got.Order)
		}
	}
}

func TestDefaultOrders(t *testing.T) {
	t.Parallel()
	o := DefaultOrders()
	if len(o) != 156 {
		t.Fatalf("%d orders, want 156", len(o))
	}
	for _, a := range []float64{1.1, 1.2, 2, 5.5, 10.9, 11, 32, 63, 128, 256, 512, 1024} {
		found := false
		for _, b := range o {
			found = found || a == b
		}
		if !found {
			t.Errorf("order %v missing", a)
		}
	}
	if o[0] != 1.1 || o[len(o)-1] != 1024 {
		t.Errorf("orders run from %v to %v, want 1.1 to 1024", o[0], o[len(o)-1])
	}
	if err := (Curve{Orders: o, Eps: make([]float64, len(o))}).Validate(); err != nil {
		t.Errorf("default orders: %v", err)
	}
}

// Independent properties of the mechanism curves.
func TestCurveProperties(t *testing.T) {
	t.Parallel()
	orders := DefaultOrders()
	// Laplace: every order is at most the pure-DP level 1/b, and the curve
	// approaches it.
	for _, b := range []float64{0.01, 0.3, 1, 7, 1e4} {
		c := curveOf(t, "laplace", b, orders)
		for i, e := range c.Eps {
			if e > 1/b*(1+relTol) {
				t.Errorf("Laplace(%v) at alpha %v: %v > 1/b", b, c.Orders[i], e)
			}
		}
		if err := c.Validate(); err != nil {
			t.Errorf("Laplace(%v): %v", b, err)
		}
	}
	// Randomized response: p and 1-p are the same mechanism, p = 1/2 is
	// perfectly private, and as alpha grows the level tends to the pure-DP
	// level log(p/(1-p)) from below.
	for _, p := range []float64{0.25, 0.6, 0.9} {
		a, b := curveOf(t, "rr", p, orders), curveOf(t, "rr", 1-p, orders)
		for i := range a.Eps {
			if math.Abs(a.Eps[i]-b.Eps[i]) > relTol*a.Eps[i] {
				t.Errorf("RR(%v) and RR(%v) differ at alpha %v: %v, %v", p, 1-p, a.Orders[i], a.Eps[i], b.Eps[i])
			}
		}
		pure := math.Abs(math.Log(p / (1 - p)))
		if last := a.Eps[len(a.Eps)-1]; last > pure || last < 0.99*pure {
			t.Errorf("RR(%v) at alpha 1024: %v, want just below %v", p, last, pure)
		}
	}
	if c := curveOf(t, "rr", 0.5, orders); c.Eps[len(c.Eps)-1] != 0 {
		t.Errorf("RR(1/2) = %v, want 0", c.Eps[len(c.Eps)-1])
	}
	if p := RRProb(math.Log(3)); math.Abs(p-0.75) > 1e-15 {
		t.Errorf("RRProb(log 3) = %v, want 0.75", p)
	}
}

func TestConstructorErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		f    func() (Curve, error)
	}{
		{"sigma 0", func() (Curve, error) { return Gaussian(0, nil) }},
		{"sigma NaN", func() (Curve, error) { return Gaussian(math.NaN(), nil) }},
		{"sigma Inf", func() (Curve, error) { return Gaussian(math.Inf(1), nil) }},
		{"sigma tiny overflows", func() (Curve, error) { return Gaussian(1e-300, nil) }},
		{"b negative", func() (Curve, error) { return Laplace(-1, nil) }},
		{"b tiny overflows", func() (Curve, error) { return Laplace(1e-310, nil) }},
		{"p 0", func() (Curve, error) { return RandomizedResponse(0, nil) }},
		{"p 1", func() (Curve, error) { return RandomizedResponse(1, nil) }},
		{"order 1", func() (Curve, error) { return Gaussian(1, []float64{1, 2}) }},
		{"order Inf", func() (Curve, error) { return Gaussian(1, []float64{2, math.Inf(1)}) }},
		{"orders decreasing", func() (Curve, error) { return Gaussian(1, []float64{3, 2}) }},
		{"orders repeated", func() (Curve, error) { return Laplace(1, []float64{2, 2}) }},
		{"orders empty", func() (Curve, error) { return RandomizedResponse(0.7, []float64{}) }},
	} {
		if _, err := tc.f(); err == nil {
			t.Errorf("%s: no error", tc.desc)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc string
		c    Curve
		ok   bool
	}{
		{"valid", Curve{[]float64{1.5, 2, 10}, []float64{0, 0.1, 0.1}}, true},
		{"single order", Curve{[]float64{2}, []float64{3}}, true},
		{"empty", Curve{}, false},
		{"length mismatch", Curve{[]float64{2, 3}, []float64{1}}, false},
		{"order 1", Curve{[]float64{1, 2}, []float64{0, 1}}, false},
		{"order below 1", Curve{[]float64{0.5}, []float64{0}}, false},
		{"order NaN", Curve{[]float64{math.NaN()}, []float64{0}}, false},
		{"order Inf", Curve{[]float64{math.Inf(1)}, []float64{0}}, false},
		{"orders not increasing", Curve{[]float64{3, 2}, []float64{1, 1}}, false},
		{"eps negative", Curve{[]float64{2}, []float64{-1e-300}}, false},
		{"eps NaN", Curve{[]float64{2}, []float64{math.NaN()}}, false},
		{"eps Inf", Curve{[]float64{2}, []float64{math.Inf(1)}}, false},
		{"eps decreasing", Curve{[]float64{2, 3}, []float64{1, 0.999}}, false},
	} {
		if err := tc.c.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tc.desc, err, tc.ok)
		}
	}
}

func TestToApproxEdges(t *testing.T) {
	t.Parallel()
	flat := Curve{Orders: []float64{2, 4, 8}, Eps: []float64{1, 1, 1}}
	// A flat curve converts best at the largest order: warn.
	a, err := ToApprox(flat, 1e-5, Balle2020)
	if err != nil {
		t.Fatal(err)
	}
	if a.Order != 8 || !strings.Contains(a.Warning, "largest order") {
		t.Errorf("flat curve: order %v warning %q, want 8 and a largest-order warning", a.Order, a.Warning)
	}
	// Exact value at order 8 (hand computation): 1 + log(7/8) - (log 1e-5 + log 8)/7.
	want := 1 + math.Log(7.0/8) - (math.Log(1e-5)+math.Log(8))/7
	if !upperWithin(a.Eps, want) {
		t.Errorf("flat curve: eps %.17g, want %.17g rounded up", a.Eps, want)
	}
	// A steep curve converts best at the smallest order: warn.
	steep := Curve{Orders: []float64{2, 4}, Eps: []float64{0.1, 100}}
	if a, _ := ToApprox(steep, 0.01, Mironov2017); a.Index != 0 || !strings.Contains(a.Warning, "smallest order") {
		t.Errorf("steep curve: index %d warning %q, want 0 and a smallest-order warning", a.Index, a.Warning)
	}
	// One order: no warning; the zero curve gives 0 with large delta, clamped.
	if a, _ := ToApprox(Curve{Orders: []float64{3}, Eps: []float64{2}}, 1e-6, Balle2020); a.Warning != "" {
		t.Errorf("single order warns: %q", a.Warning)
	}
	zero := Curve{Orders: []float64{1.5, 2, 64}, Eps: []float64{0, 0, 0}}
	if a, _ := ToApprox(zero, 0.9, Balle2020); a.Eps != 0 || a.Warning != "" {
		t.Errorf("zero curve at delta 0.9: eps %v warning %q, want 0 and none", a.Eps, a.Warning)
	}
	// Balle2020 is tighter than Mironov2017 at every order.
	g, _ := Gaussian(1.3, nil)
	for i, al := range g.Orders {
		if b, m := Balle2020.Eps(al, g.Eps[i], 1e-6), Mironov2017.Eps(al, g.Eps[i], 1e-6); b >= m {
			t.Errorf("alpha %v: balle2020 %v >= mironov2017 %v", al, b, m)
		}
	}
	for _, delta := range []float64{0, 1, -0.5, 2, math.NaN(), math.Inf(1)} {
		if _, err := ToApprox(flat, delta, Balle2020); err == nil {
			t.Errorf("delta %v: no error", delta)
		}
	}
	if _, err := ToApprox(Curve{Orders: []float64{2, 3}, Eps: []float64{1, 0}}, 1e-5, Balle2020); err == nil {
		t.Error("decreasing curve: no error")
	}
	if _, err := ToApprox(flat, 1e-5, Conversion(7)); err == nil {
		t.Error("unknown conversion: no error")
	}
	if _, err := ParseConversion("rdp"); err == nil {
		t.Error(`ParseConversion("rdp"): no error`)
	}
}

func TestFromBounds(t *testing.T) {
	t.Parallel()
	c, err := FromBounds([]float64{1.5, 2, 4, 8}, []float64{0.3, 0.2, 0.5, 0.4})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0.2, 0.2, 0.4, 0.4}; !slices.Equal(c.Eps, want) {
		t.Errorf("FromBounds: %v, want %v", c.Eps, want)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	for _, tc := range []struct {
		orders, upper []float64
	}{
		{nil, nil},
		{[]float64{2}, []float64{1, 2}},
		{[]float64{2, 1.5}, []float64{1, 2}},
		{[]float64{2}, []float64{-1}},
		{[]float64{2}, []float64{math.Inf(1)}},
	} {
		if _, err := FromBounds(tc.orders, tc.upper); err == nil {
			t.Errorf("FromBounds(%v, %v): no error", tc.orders, tc.upper)
		}
	}
}
