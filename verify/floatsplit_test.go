package verify_test

import (
	"testing"

	"github.com/bernamp/bernamp/verify"
)

// TestFloatSplitBeforeBig: at alpha near 1 the solver closes tiles near
// the tangent point that the checker's float64 bounds miss by a rounding-
// sized margin. Halving them in float64 first closes them without
// big.Float: the check of the solver's certificate at (50, 0.4, 1.001,
// 1e-3) accepts with no big.Float box, and without the rule (noFloatSplit)
// accepts only through big.Float (measured: 6 boxes, 8 times the time).
func TestFloatSplitBeforeBig(t *testing.T) {
	f := solverFile(t, 50, 0.4, 1.001, 1e-3)
	with, tw := checkOff(t, f, verify.SetNoFloatSplit, false, nil)
	without, to := checkOff(t, f, verify.SetNoFloatSplit, true, nil)
	t.Logf("with: %+v in %v; without: %+v in %v", with, tw, without, to)
	if !with.Accepted || !without.Accepted {
		t.Fatalf("rejected: with %q, without %q", with.Failure, without.Failure)
	}
	if with.Fallback != 0 {
		t.Errorf("with the float64 halvings, %d boxes still went to big.Float", with.Fallback)
	}
	if without.Fallback == 0 {
		t.Errorf("without them no box went to big.Float: the test no longer exercises the rule")
	}
}

// BenchmarkCheckFloatSplit checks the solver's certificates at alpha near
// 1 with and without the float64 halvings before big.Float (sub-benchmarks
// side by side).
func BenchmarkCheckFloatSplit(b *testing.B) {
	files := benchFiles(b, []benchPoint{{50, 0.4, 1.001, 1e-3}, {200, 0.49, 1.001, 1e-3}})
	benchOffOn(b, files, "noFloatSplit", verify.SetNoFloatSplit)
}
