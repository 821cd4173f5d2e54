package bernamp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/bernamp/bernamp/bounds"
	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/puredp"
	"github.com/bernamp/bernamp/verify"
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

// TestPureDPCertificate: the pure-DP level's certificate (Level.File,
// certfile.KindPureDP) is accepted by the independent checker at random
// points from c = 1e-6 to 0.4999, n up to 10^6 and eps up to 50, and a
// claim one part in 1e12 below the level is rejected wherever eps' is
// below both eps and L (where it is not, the claim is eps or L itself).
func TestPureDPCertificate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 31))
	below := 0
	for i := 0; i < 200; i++ {
		// Half the points near c = 1/2 with small n, where eps' is below
		// eps and L and the rejection test bites.
		d, k := 1+rng.IntN(1000), 1+rng.IntN(1000)
		c := math.Exp(math.Log(1e-6) + rng.Float64()*(math.Log(0.4999)-math.Log(1e-6)))
		if i%2 == 0 {
			d, k, c = 1+rng.IntN(20), 1+rng.IntN(5), 0.5-math.Exp(math.Log(1e-4)+rng.Float64()*(math.Log(0.4)-math.Log(1e-4)))
		}
		eps := math.Exp(math.Log(1e-3) + rng.Float64()*(math.Log(50)-math.Log(1e-3)))
		l, err := puredp.Amplify(d, k, c, eps)
		if err != nil {
			t.Fatal(err)
		}
		f := l.File(d, k, c, eps)
		rep, err := verify.Check(context.Background(), f, nil)
		if err != nil || !rep.Accepted {
			t.Errorf("d %d k %d c %v eps %v: %+v, %v", d, k, c, eps, rep, err)
		}
		if l.Eps < eps*(1-1e-9) && l.Eps < float64(d*k)*math.Log((1-c)/c)*(1-1e-9) {
			below++
			f.Claim = certfile.Num(l.Eps * (1 - 1e-12))
			if rep, err := verify.Check(context.Background(), f, nil); err != nil || rep.Accepted {
				t.Errorf("d %d k %d c %v eps %v: a claim below the level: %+v, %v", d, k, c, eps, rep, err)
			}
		}
	}
	if below < 50 {
		t.Errorf("the rejection test ran at %d points, want at least 50", below)
	}
	if f := (puredp.Level{}).File(1, 1, 0.1, math.Inf(1)); f != nil {
		t.Errorf("eps = inf: a file %+v", f)
	}
}

// TestClosedFormCertificate: the closed form min(eps, d k r_alpha(c)) of
// package bounds, written as a closed-form certificate, is accepted by the
// independent checker at random points (c from 1e-6 to 0.4999999, alpha
// from 1.000001 to 1000, n up to 10^6, eps below the asymptote half the
// time), and rejected one part in 1e12 lower where the asymptote is the
// minimum: bounds' rounding up is at least enough, and not wildly more.
func TestClosedFormCertificate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	logU := func(lo, hi float64) float64 {
		return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
	}
	for i := 0; i < 300; i++ {
		d, k := 1+rng.IntN(1000), 1+rng.IntN(1000)
		c := logU(1e-6, 0.5)
		if i%3 == 0 {
			c = 0.5 - logU(1e-7, 0.4)
		}
		alpha := 1 + logU(1e-6, 999)
		u := bounds.UpperBound(d, k, c, alpha, 1)
		eps := u.Asymptote * 2
		if i%2 == 0 {
			eps = u.Asymptote * rng.Float64()
		}
		v := min(eps, u.Asymptote)
		f := certfile.NewClosedForm(d, k, c, alpha, eps, v, 0)
		if rep, err := verify.Check(context.Background(), f, nil); err != nil || !rep.Accepted {
			t.Errorf("d %d k %d c %v alpha %v eps %v: %+v, %v", d, k, c, alpha, eps, rep, err)
		}
		if eps > u.Asymptote {
			f.Claim = certfile.Exact(u.Asymptote * (1 - 1e-12))
			if rep, err := verify.Check(context.Background(), f, nil); err != nil || rep.Accepted {
				t.Errorf("d %d k %d c %v alpha %v: a claim below the asymptote: %+v, %v", d, k, c, alpha, rep, err)
			}
		}
	}
}
