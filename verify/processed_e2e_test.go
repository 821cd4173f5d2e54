package verify_test

import (
	"testing"
	"time"

	"github.com/bernamp/bernamp/verify"
)

// TestProcessedEndToEnd: at a point where Post is barely below eps (L1
// near 1: n r_alpha(c) far above eps, not yet the closed form), the
// solver closes wide tiles by the data-processing bound alone; the
// checker accepts its certificate, and without its own processed
// (SetNoProcessed) it splits more tiles into more boxes (measured: 180
// extra boxes and 14 tiles split with it, 344 and 20 without; with a
// budget of 200 extra boxes it rejects the file).
func TestProcessedEndToEnd(t *testing.T) {
	const processedBudget = 2000
	for _, p := range []benchPoint{{1000, 0.43, 1.003, 1}} {
		t0 := time.Now()
		f := solverFile(t, p.n, p.c, p.alpha, p.eps)
		cs := time.Since(t0)
		o := &verify.Options{MaxExtra: processedBudget}
		with, dw := checkOff(t, f, verify.SetNoProcessed, false, o)
		without, dwo := checkOff(t, f, verify.SetNoProcessed, true, o)
		t.Logf("%+v: %d tiles (certify %v); with processed %d extra boxes, %d split, %v; without, %d extra boxes, %d split, accepted %v after %v (%s)",
			p, len(f.Tiles), cs.Round(time.Millisecond), extraBoxes(with), with.Split, dw.Round(time.Millisecond),
			extraBoxes(without), without.Split, without.Accepted, dwo.Round(time.Millisecond), without.Failure)
		if !with.Accepted {
			t.Errorf("%+v: rejected: %s", p, with.Failure)
		}
		if !(without.Split > with.Split && extraBoxes(without) > extraBoxes(with)) {
			t.Errorf("%+v: without processed %d tiles split, %d extra boxes; with it %d and %d: the point does not show processed",
				p, without.Split, extraBoxes(without), with.Split, extraBoxes(with))
		}
	}
}
