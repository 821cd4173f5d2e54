package verify_test

import (
	"testing"

	"github.com/bernamp/bernamp/verify"
)

// BenchmarkCheckCurve checks the solver's certificates at (15, 0.1, 5,
// 0.01) and (10^4, 0.4999, 5, 1e-3) (small eps near c = 1/2), and three
// honest files of testdata/verify, with and without curve (sub-benchmarks
// side by side), and reports the extra boxes and the tiles split.
func BenchmarkCheckCurve(b *testing.B) {
	files := benchFiles(b, []benchPoint{{15, 0.1, 5, 0.01}, {10000, 0.4999, 5, 1e-3}},
		"d1-k1-c0.3-alpha50-eps1.json", "d5-k1-c0.1-alpha5-eps3.json", "d1000-k1-c0.49-alpha5-eps1.json")
	benchOffOn(b, files, "noCurve", verify.SetNoCurve)
}

// TestCurveEndToEnd: the solver's certificates at points where its
// curvature bound closes whole tiles along the diagonal (small eps) are
// accepted by the checker within a budget of curveBudget extra boxes,
// and rejected under the same budget without the checker's own curve
// (SetNoCurve): without it the checker splits those tiles into
// thousands of boxes (with the default budget: 2,620 at (15, 0.1, 5,
// 0.01), 5,330 at (10^4, 0.4999, 5, 1e-3); 14 and 30 with curve). The
// few tiles it still splits with curve are closed by the solver's Taylor
// forms, a little tighter than the checker's.
func TestCurveEndToEnd(t *testing.T) {
	const curveBudget = 200
	for _, p := range []benchPoint{{15, 0.1, 5, 0.01}, {10000, 0.4999, 5, 1e-3}} {
		_, without := offOnCheck(t, p, "curve", verify.SetNoCurve, &verify.Options{MaxExtra: curveBudget})
		if without.Accepted {
			t.Errorf("%+v: accepted without curve within %d extra boxes (%d split): the point does not show curve", p, curveBudget, without.Split)
		}
	}
}
