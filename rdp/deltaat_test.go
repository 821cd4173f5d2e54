package rdp_test

import (
	"math"
	"testing"

	"github.com/bernamp/bernamp/rdp"
)

// TestDeltaAt checks DeltaAt as the inverse of ToApprox.
func TestDeltaAt(t *testing.T) {
	t.Parallel()
	for _, sigma := range []float64{0.7, 1, 2} {
		curve, err := rdp.Gaussian(sigma, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, conv := range []rdp.Conversion{rdp.Balle2020, rdp.Mironov2017} {
			for _, epsOut := range []float64{0.5, 1, 2, 4} {
				dl, order, err := rdp.DeltaAt(curve, epsOut, conv)
				if err != nil {
					t.Fatal(err)
				}
				if dl >= 1 {
					continue
				}
				a, err := rdp.ToApprox(curve, dl, conv)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(a.Eps-epsOut) > 1e-12*(1+epsOut) || a.Order != order {
					t.Errorf("sigma=%v %v eps'=%v: DeltaAt gives delta %v at order %v, ToApprox back gives eps %v at order %v",
						sigma, conv, epsOut, dl, order, a.Eps, a.Order)
				}
				// Nothing below: at delta a hair smaller, eps must exceed eps'.
				if b, _ := rdp.ToApprox(curve, dl*(1-1e-9), conv); b.Eps <= epsOut {
					t.Errorf("sigma=%v %v eps'=%v: delta %v is not the smallest", sigma, conv, epsOut, dl)
				}
			}
		}
	}
	if _, _, err := rdp.DeltaAt(rdp.Curve{Orders: []float64{2}, Eps: []float64{1}}, -1, rdp.Balle2020); err == nil {
		t.Error("DeltaAt accepted eps' = -1")
	}
}
