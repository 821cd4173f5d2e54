package pld

import (
	"context"
	"math"
	"testing"

	"github.com/bernamp/bernamp/internal/testref"
)

// TestSubsampledGaussianMatchesDPAccounting: the profile of one DP-SGD
// step (both directions), composed without amplification, gives
// dp_accounting's answer for its own subsampled-Gaussian PLD
// (testdata/ref/subsampled_ref.csv, made with the unmodified library) at the
// same discretization: eps at delta 1e-5 and delta at eps 1. At T = 1
// bernamp answers from the profile itself, so it may be below
// dp_accounting's discretized answer by up to the step (1e-4), never above.
func TestSubsampledGaussianMatchesDPAccounting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rows, _ := testref.Floats(t, "../testdata/ref/subsampled_ref.csv", 6, 12)
	worst := 0.0
	for _, r := range rows {
		sigma, q, steps, h, epsRef, deltaRef := r[0], r[1], int(r[2]), r[3], r[4], r[5]
		p, err := SubsampledGaussian(1, sigma, q)
		if err != nil {
			t.Fatal(err)
		}
		opt := DefaultOptions()
		opt.H = h
		a, err := NewAccount(ctx, []Step{{Mechanism: p, Steps: steps}}, opt)
		if err != nil {
			t.Fatal(err)
		}
		eps, delta := a.EpsUpper(1e-5), a.DeltaUpper(1)
		if steps == 1 {
			if eps > epsRef*(1+1e-9) || eps < epsRef-h {
				t.Errorf("sigma %v q %v T 1: eps %v, dp_accounting %v", sigma, q, eps, epsRef)
			}
			continue
		}
		rel := math.Abs(eps-epsRef) / epsRef
		worst = math.Max(worst, rel)
		if rel > 1e-5 {
			t.Errorf("sigma %v q %v T %d: eps %v, dp_accounting %v (rel %.2g)", sigma, q, steps, eps, epsRef, rel)
		}
		// delta at eps 1: dp_accounting's includes its 1e-15 truncation
		// mass, as bernamp's does.
		if math.Abs(delta-deltaRef) > 1e-5*deltaRef+2e-15 {
			t.Errorf("sigma %v q %v T %d: delta(1) %v, dp_accounting %v", sigma, q, steps, delta, deltaRef)
		}
	}
	t.Logf("largest relative difference of eps from dp_accounting (T > 1): %.2g", worst)
}
