package verify_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
	"github.com/bernamp/bernamp/verify"
)

// BenchmarkCheckCurve checks the solver's certificates at two points of
// small eps near c = 1/2 and (15, 0.1, 5, 0.01), and three honest files
// of testdata/verify, with and without curve (sub-benchmarks side by
// side), and reports the extra boxes and split tiles.
func BenchmarkCheckCurve(b *testing.B) {
	type file struct {
		name string
		f    *certfile.File
	}
	var files []file
	for _, p := range []struct {
		n             int
		c, alpha, eps float64
	}{{15, 0.1, 5, 0.01}, {10000, 0.4999, 5, 1e-3}} {
		files = append(files, file{fmt.Sprintf("n%d-c%g-alpha%g-eps%g", p.n, p.c, p.alpha, p.eps), solverFile(b, p.n, p.c, p.alpha, p.eps)})
	}
	for _, name := range []string{"d1-k1-c0.3-alpha50-eps1.json", "d5-k1-c0.1-alpha5-eps3.json", "d1000-k1-c0.49-alpha5-eps1.json"} {
		f, err := certfile.ReadFile("../testdata/verify/" + name)
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, file{strings.TrimSuffix(name, ".json"), f})
	}
	for _, fl := range files {
		for _, noCurve := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/noCurve=%v", fl.name, noCurve), func(b *testing.B) {
				defer verify.SetNoCurve(noCurve)()
				var r verify.Report
				for b.Loop() {
					var err error
					if r, err = verify.Check(context.Background(), fl.f, nil); err != nil || !r.Accepted {
						b.Fatal(r.Failure, err)
					}
				}
				b.ReportMetric(float64(extraBoxes(r)), "extra-boxes")
				b.ReportMetric(float64(r.Split), "split")
			})
		}
	}
}
