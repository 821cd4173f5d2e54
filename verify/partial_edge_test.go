package verify_test

import (
	"testing"

	"github.com/bernamp/bernamp/verify"
)

// TestPartialFarEdge: at alpha near 1 the solver closes tiles whose p
// runs to logit -1024 (p = e^-1024, below float64's range) by the Taylor
// form in q alone (partial). The checker's float64 partial narrows its
// derivative ranges by pairedThird, which has no bound at such a corner;
// that failure used to drop the whole form, and each tile took hundreds
// of boxes (383 and 315 for the two below). Now derivsGT's ranges stand
// alone there and each tile closes at once.
func TestPartialFarEdge(t *testing.T) {
	f := solverFile(t, 1000, 0.49, 1.001, 1e-3)
	for _, x := range [][4]float64{{-1024, -512, -2, -1}, {-768, -512, -10, -9}} {
		ok, boxes, err := verify.ProveTile(f, x[0], x[1], x[2], x[3], false)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || boxes != 1 {
			t.Errorf("tile %v: proved %v in %d boxes, want at once (1 box)", x, ok, boxes)
		}
	}
}

// BenchmarkCheckPartialFirst checks the solver's certificates at alpha
// 1.001 with the one-variable form tried first on edge tiles and last
// (noPartialFirst), side by side: the same boxes, less time (measured at
// n = 10^4, c = 0.4999: 10.1 s to 6.2 s a check).
func BenchmarkCheckPartialFirst(b *testing.B) {
	files := benchFiles(b, []benchPoint{{1000, 0.49, 1.001, 1e-3}, {10000, 0.4999, 1.001, 1e-3}})
	benchOffOn(b, files, "noPartialFirst", verify.SetNoPartialFirst)
}
