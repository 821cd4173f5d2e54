package verify

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/bernamp/bernamp/certfile"
)

func BenchmarkExp(b *testing.B) {
	x := new(big.Float).SetPrec(prec).SetFloat64(-3.7)
	for b.Loop() {
		expBound(x, true)
	}
}

func BenchmarkLog(b *testing.B) {
	x := new(big.Float).SetPrec(prec).SetFloat64(0.037)
	for b.Loop() {
		logBound(x, true)
	}
}

// BenchmarkCheck checks the Figure 2 certificate at (d, c, eps) = (5, 0.1, 3).
func BenchmarkCheck(b *testing.B) {
	f, err := certfile.ReadFile("../testdata/verify/d5-k1-c0.1-alpha5-eps3.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r, err := Check(context.Background(), f, nil); err != nil || !r.Accepted {
			b.Fatal(r.Failure, err)
		}
	}
}

// BenchmarkCheckFiles checks each honest certificate of testdata/verify
// (the grids' points and n = 100, 1000, 10^4 near c = 1/2) and reports
// the boxes left to the big.Float bounds.
func BenchmarkCheckFiles(b *testing.B) {
	for _, name := range []string{"d1-k1-c0.1-alpha5-eps1.json", "d1-k1-c0.3-alpha50-eps1.json", "d3-k1-c0.3-alpha50-eps1.json",
		"d5-k1-c0.1-alpha5-eps3.json", "d1-k4-c0.1-alpha5-eps2.5.json",
		"d100-k1-c0.45-alpha5-eps1.json", "d1000-k1-c0.49-alpha5-eps1.json", "d10000-k1-c0.499-alpha5-eps1.json"} {
		f, err := certfile.ReadFile("../testdata/verify/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(name, ".json"), func(b *testing.B) {
			var r Report
			for b.Loop() {
				r, err = Check(context.Background(), f, nil)
				if err != nil || !r.Accepted {
					b.Fatal(r.Failure, err)
				}
			}
			b.ReportMetric(float64(r.Tiles), "tiles")
			b.ReportMetric(float64(r.Fallback), "fallback-boxes")
		})
	}
}
