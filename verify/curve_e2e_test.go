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
