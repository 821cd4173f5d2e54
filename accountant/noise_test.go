package accountant

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/rdp"
)

// TestNoiseCurve: the curve at a noise is the mechanism's (rdp.Gaussian,
// rdp.Laplace on the orders given), a noise so small that a level
// overflows gives +Inf at every order (no guarantee, not an error or a
// finite level), and another mechanism or bad orders are refused.
func TestNoiseCurve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		mech string
		rdp  func(float64, []float64) (rdp.Curve, error)
	}{{"gaussian", rdp.Gaussian}, {"laplace", rdp.Laplace}} {
		noise, err := NoiseCurve(tc.mech, calOrders)
		if err != nil {
			t.Fatal(err)
		}
		want, err := tc.rdp(2, calOrders)
		if err != nil {
			t.Fatal(err)
		}
		got := noise(2)
		for i := range calOrders {
			if got.Orders[i] != calOrders[i] || got.Eps[i] != want.Eps[i] {
				t.Errorf("%s at 2: order %v eps %v, want %v %v", tc.mech, got.Orders[i], got.Eps[i], calOrders[i], want.Eps[i])
			}
		}
		if _, err := tc.rdp(1e-310, calOrders); err == nil {
			t.Fatalf("%s at 1e-310: no overflow; pick a smaller noise", tc.mech)
		}
		for i, e := range noise(1e-310).Eps {
			if !math.IsInf(e, 1) {
				t.Errorf("%s at 1e-310: eps %v at order %v, want +Inf", tc.mech, e, calOrders[i])
			}
		}
		def, err := NoiseCurve(tc.mech, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(def(1).Orders); n != len(rdp.DefaultOrders()) {
			t.Errorf("%s with nil orders: %d orders, want the %d default ones", tc.mech, n, len(rdp.DefaultOrders()))
		}
	}
	if _, err := NoiseCurve("rr", nil); err == nil {
		t.Error("rr: accepted (its parameter is not a noise scale)")
	}
	if _, err := NoiseCurve("gaussian", []float64{2, 1.5}); err == nil {
		t.Error("decreasing orders: accepted")
	}
}
