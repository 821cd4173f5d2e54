package verify_test

import (
	"testing"

	"github.com/bernamp/bernamp/verify"
)

// TestBeyondUnderflow: at (10^4, 0.495, 1.001, 1e-3) a tile with p below
// e^-768 (which float64 does not hold) that must be split is halved along
// t (splitBox's rule beyond underLogit): [-1024, -768] x [-12, -4], four
// of the solver's tiles in one, takes 7 boxes; halving the wider side, s,
// gains nothing there and took 1,023 (measured). Before the checker's
// partial form held at such corners (TestPartialFarEdge), the solver's
// own tile [-1024, -768] x [-10, -8] took 3,929 boxes that way, and the
// check ran out of its budgets and rejected the certificate.
func TestBeyondUnderflow(t *testing.T) {
	f := solverFile(t, 10000, 0.495, 1.001, 1e-3)
	var boxes [2]int
	for i, noBeyond := range []bool{false, true} {
		ok, b, err := verify.ProveTile(f, -1024, -768, -12, -4, noBeyond)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("without the rule %v: proved %v in %d boxes", noBeyond, ok, b)
		if !ok && !noBeyond {
			t.Error("not proved with the rule")
		}
		boxes[i] = b
	}
	if boxes[0] > 20 || 10*boxes[0] > boxes[1] {
		t.Errorf("%d boxes with the rule, %d without", boxes[0], boxes[1])
	}
}
