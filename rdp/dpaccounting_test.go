package rdp

import (
	"math"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
)

// TestDPAccountingAgainstHighPrecision checks the DPAccounting conversion
// against testdata/accountant/dp_accounting.csv: dp_accounting's
// compute_epsilon and compute_delta as published, evaluated in mpmath at 60
// digits (gen_accountant.py). eps and delta must be at or above the
// reference and within relTol of it (0 exactly where the reference is 0),
// and the order must be dp_accounting's.
func TestDPAccountingAgainstHighPrecision(t *testing.T) {
	t.Parallel()
	low := []float64{1.001, 1.005, 1.01, 1.02, 1.5, 2, 4, 8, 16}
	n := 0
	for _, rec := range testref.Rows(t, "../testdata/accountant/dp_accounting.csv", 90) {
		var orders []float64 // nil: DefaultOrders
		if rec[1] == "low" {
			orders = low
		}
		sigma, want, wantOrder := testref.Float(t, rec[2]), testref.Float(t, rec[5]), testref.Float(t, rec[6])
		c := curveOf(t, "gaussian", sigma, orders)
		var got, order float64
		switch rec[0] {
		case "epsilon":
			a, err := ToApprox(c, testref.Float(t, rec[3]), DPAccounting)
			if err != nil {
				t.Fatal(err)
			}
			got, order = a.Eps, a.Order
		case "delta":
			var err error
			if got, order, err = DeltaAt(c, testref.Float(t, rec[4]), DPAccounting); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("unknown kind %q", rec[0])
		}
		ok := upperWithin(got, want)
		switch {
		case rec[5] == "0.0":
			ok = got == 0
		case want < 1e-290: // below float64's normal range: only the side is checked
			ok = got >= want && got < 1e-280
		case rec[0] == "delta":
			// DeltaAt pads log delta by ulps of its terms, a relative
			// allowance on the log (up to 1e-12 relative in delta at 1e-138).
			ok = got >= want && math.Log(got)-math.Log(want) <= relTol*(1+math.Abs(math.Log(want)))
		}
		if !ok || order != wantOrder {
			t.Errorf("%v: got %.17g at order %v, want %.17g at order %v", rec, got, order, want, wantOrder)
		}
		n++
	}
	if n < 90 {
		t.Fatalf("%d rows checked", n)
	}
}

// TestDPAccountingRule checks the rule's branches by hand: the KL line
// gives exactly 0, orders at or below 1.01 give nothing else, and the
// minimum is taken before the clamp at 0.
func TestDPAccountingRule(t *testing.T) {
	t.Parallel()
	// delta = 0.1: KL line when 1 - e^-eps < 0.01, eps < 0.01005.
	if got := DPAccounting.Eps(1.005, 0.01, 0.1); got != 0 {
		t.Errorf("KL line: eps' = %v, want 0", got)
	}
	if got := DPAccounting.Eps(1.005, 0.0101, 0.1); !math.IsInf(got, 1) {
		t.Errorf("alpha 1.005 past the KL line: eps' = %v, want +Inf (no bound)", got)
	}
	// Above 1.01 it is Balle2020.
	if a, b := DPAccounting.Eps(3, 2, 1e-5), Balle2020.Eps(3, 2, 1e-5); a != b {
		t.Errorf("alpha 3: dp_accounting %v, balle2020 %v", a, b)
	}
	// delta = 0.5. Order 1.5, eps 0.1: the KL line (0.25 + expm1(-0.1) >
	// 0) gives 0. Order 2, eps 0.5: the KL line fails (0.25 + expm1(-0.5)
	// < 0) and Balle2020 gives 0.5 + log(1/2) - log(1)/1 = -0.193 < 0:
	// dp_accounting reports order 2, the unclamped minimum. Balle2020 alone
	// gives 0 at order 1.5 already (0.1 - log 3 - 2 log(0.75) < 0).
	c := Curve{Orders: []float64{1.5, 2}, Eps: []float64{0.1, 0.5}}
	a, err := ToApprox(c, 0.5, DPAccounting)
	if err != nil || a.Eps != 0 || a.Order != 2 {
		t.Errorf("ToApprox = %+v, %v; want eps 0 at order 2", a, err)
	}
	if b, _ := ToApprox(c, 0.5, Balle2020); b.Eps != 0 || b.Order != 1.5 {
		t.Errorf("balle2020 = %+v, want 0 at order 1.5 (first order at 0)", b)
	}
	// No order above 1.01: an error, not +Inf.
	if _, err := ToApprox(Curve{Orders: []float64{1.005}, Eps: []float64{1}}, 1e-5, DPAccounting); err == nil || !strings.Contains(err.Error(), "above 1.01") {
		t.Errorf("orders <= 1.01: err = %v", err)
	}
	if c, err := ParseConversion("dp_accounting"); err != nil || c != DPAccounting {
		t.Errorf("ParseConversion(dp_accounting) = %v, %v", c, err)
	}
}
