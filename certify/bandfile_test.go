package certify_test

import (
	"context"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/verify"
)

// TestBandFileVerified certifies points at large alpha with an exported
// tiling, whose certificate then holds the diagonal band, and has the
// checker accept them.
func TestBandFileVerified(t *testing.T) {
	for _, p := range []struct {
		n            int
		c, alpha, ep float64
	}{{1, 0.495, 1000, 1e-3}, {15, 0.4, 100, 0.01}, {1000, 0.495, 100, 1e-3}} {
		t0 := time.Now()
		r, err := certify.Certify(context.Background(), p.n, p.c, p.alpha, p.ep, &certify.Settings{Tiling: true})
		if err != nil {
			t.Fatal(err)
		}
		f := r.File(p.n, 1)
		if f == nil {
			t.Fatalf("%+v: no file (%s %s)", p, r.Status, r.Method)
		}
		solve := time.Since(t0)
		t0 = time.Now()
		rep, err := verify.Check(context.Background(), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%+v: %s boxes %d tiles %d band %d in band %d; solve %v check %v; %+v", p, r.Status, r.Boxes, len(f.Tiles), len(f.BandBoxes), rep.InBand, solve, time.Since(t0), rep.Failure)
		if !rep.Accepted {
			t.Errorf("%+v: rejected: %s", p, rep.Failure)
		}
	}
}
