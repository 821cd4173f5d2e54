package verify_test

import (
	"testing"

	"github.com/bernamp/bernamp/verify"
)

// TestBeyondUnderflow: at (10^4, 0.495, 1.001, 1e-3) the solver closes
// the tile [-1024, -768] x [-10, -8] (p below e^-768, which float64 does
// not hold) in one box. The checker proves it in 7 boxes by halving t
// (splitBox's rule beyond underLogit); halving the wider side, s, as
// before, it took 3,929 boxes for this tile alone, and over the whole
// file it ran out of its budgets at [-947, -946] x [-10, -9] and rejected
// the certificate (Post fell back to the closed form there).
func TestBeyondUnderflow(t *testing.T) {
	f := solverFile(t, 10000, 0.495, 1.001, 1e-3)
	var boxes [2]int
	for i, noBeyond := range []bool{false, true} {
		ok, b, err := verify.ProveTile(f, -1024, -768, -10, -8, noBeyond)
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
