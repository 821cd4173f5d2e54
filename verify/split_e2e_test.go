package verify_test

import (
	"context"
	"testing"
	"time"

	"github.com/bernamp/bernamp/certify"
	"github.com/bernamp/bernamp/verify"
)

// TestSplitPairedEndToEnd: the solver's certificates at points whose
// tiles near the diagonal the solver closes by its split-paired
// enclosure are accepted by the checker, which with its own splitPaired
// splits no more tiles than without it, and fewer at one point at least
// (both in the same run; the boxes and times are logged).
func TestSplitPairedEndToEnd(t *testing.T) {
	fewer := false
	for _, p := range []struct {
		n             int
		c, alpha, eps float64
	}{
		{15, 0.1, 50, 0.1},
		{2, 0.01, 50, 0.1},
		{30, 0.4, 500, 0.005},
	} {
		t0 := time.Now()
		r, err := certify.Certify(context.Background(), p.n, p.c, p.alpha, p.eps, &certify.Settings{Tiling: true})
		if err != nil {
			t.Fatal(err)
		}
		f := r.File(p.n, 1)
		if f == nil {
			t.Fatalf("%+v: no file (method %s, status %v)", p, r.Method, r.Status)
		}
		cs := time.Since(t0)
		check := func(noSplit bool) (verify.Report, time.Duration) {
			defer verify.SetNoSplitPaired(noSplit)()
			t0 := time.Now()
			rep, err := verify.Check(context.Background(), f, nil)
			if err != nil {
				t.Fatal(err)
			}
			return rep, time.Since(t0)
		}
		with, dw := check(false)
		without, dwo := check(true)
		t.Logf("%+v: %d tiles (certify %v); with splitPaired %d extra boxes, %d split, %v; without %d extra, %d split, %v",
			p, len(f.Tiles), cs.Round(time.Millisecond), extraBoxes(with), with.Split, dw.Round(time.Millisecond),
			extraBoxes(without), without.Split, dwo.Round(time.Millisecond))
		if !with.Accepted {
			t.Errorf("%+v: rejected: %s", p, with.Failure)
		}
		if with.Split > without.Split {
			t.Errorf("%+v: %d tiles split with splitPaired, %d without", p, with.Split, without.Split)
		}
		fewer = fewer || with.Split < without.Split
	}
	if !fewer {
		t.Error("splitPaired never spared a split")
	}
}

// extraBoxes returns the boxes that r's check bounded beyond the file's:
// its tiles outside the band and the band's boxes.
func extraBoxes(r verify.Report) int { return r.Boxes - (r.Tiles - r.InBand) - r.Band }
