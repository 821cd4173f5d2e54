package bernamp_test

import (
	"context"
	"math"
	"testing"

	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/puredp"
)

// The pieces certificate against the exact pure-DP path (alpha = inf,
// package puredp). The pure-DP optimal pair P = (e/(1+e), 1/(1+e)) on the
// corners 0^n, 1^n, Q its mirror, has R_alpha(P || Q) <= D_inf = eps, so it
// is feasible for every alpha, and at the output b = "no coin shows 1"
//
//	R_alpha(B P || B Q) >= log(P_b/Q_b) + log(P_b)/(alpha-1) = eps'_inf + log(P_b)/(alpha-1).
//
// So every proved upper bound on Post_alpha must be at least that (a bound
// below it is wrong), and as alpha grows the certified Post = LB must
// approach eps'_inf.
func TestPiecesPureDPLimit(t *testing.T) {
	for _, p := range []struct {
		n      int
		c, eps float64
	}{{1, 0.1, 1}, {2, 0.1, 0.5}, {3, 0.3, 2}, {5, 0.2, 1}, {15, 0.3, 0.3}} {
		pure, err := puredp.Amplify(p.n, 1, p.c, p.eps)
		if err != nil {
			t.Fatal(err)
		}
		e := math.Exp(p.eps)
		logPb := math.Log(e/(1+e)*math.Pow(1-p.c, float64(p.n)) + 1/(1+e)*math.Pow(p.c, float64(p.n)))
		prevGap := math.Inf(1)
		for _, alpha := range []float64{10, 100, 1000} {
			r, err := certify.Certify(context.Background(), p.n, p.c, alpha, p.eps, nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != certify.Proved {
				t.Fatalf("%+v alpha %v: %s", p, alpha, r.Status)
			}
			floor := pure.Lower + logPb/(alpha-1)
			if r.Upper < floor-1e-12 {
				t.Errorf("%+v alpha %v: proved upper %v below the pure-DP pair's value %v", p, alpha, r.Upper, floor)
			}
			gap := math.Abs(r.Upper - pure.Eps)
			if gap >= prevGap {
				t.Errorf("%+v alpha %v: |upper - eps'_inf| = %v does not shrink (was %v)", p, alpha, gap, prevGap)
			}
			prevGap = gap
		}
		t.Logf("%+v: pure %v, |upper-pure| at alpha 1000 %v", p, pure.Eps, prevGap)
		if prevGap > 0.01 {
			t.Errorf("%+v: at alpha 1000 the certified level is %v from eps'_inf", p, prevGap)
		}
	}
}
