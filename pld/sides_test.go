package pld

import (
	"context"
	"fmt"
	"testing"
)

// TestSidesOrdered: composed, the upper side (pessimistic PLD of the exact
// amplified profile) is never below the lower side (the attaining real
// mechanism composed optimistically), for eps at delta and delta at eps,
// symmetric and asymmetric mechanisms; and neither is NaN.
func TestSidesOrdered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, _ := Gaussian(1, 1.5)
	l, _ := Laplace(1, 0.7)
	rr, _ := RandomizedResponse(0.8)
	sg, _ := SubsampledGaussian(1, 1, 0.05)
	opt := DefaultOptions()
	opt.H = 1e-3
	for _, p := range []Profile{g, l, rr, sg} {
		for _, n := range []int{1, 50} {
			for _, c := range []float64{0.05, 0.3} {
				for _, steps := range []int{1, 20} {
					name := fmt.Sprintf("%s n=%d c=%v T=%d", p.Name, n, c, steps)
					a, err := NewAccount(ctx, []Step{{Mechanism: p, N: n, C: c, Steps: steps}}, opt)
					if err != nil {
						t.Fatal(err)
					}
					up := a.EpsUpper(1e-5)
					lo, err := a.EpsLower(ctx, 1e-5)
					if err != nil {
						t.Fatal(err)
					}
					if !(lo <= up) {
						t.Errorf("%s: eps_lower %v > eps_upper %v", name, lo, up)
					}
					e := up / 2
					du := a.DeltaUpper(e)
					dl, err := a.DeltaLower(ctx, e)
					if err != nil {
						t.Fatal(err)
					}
					if !(dl <= du) {
						t.Errorf("%s: at eps %v delta_lower %v > delta_upper %v", name, e, dl, du)
					}
				}
			}
		}
	}
}
