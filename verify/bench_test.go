package verify

import (
	"context"
	"math/big"
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
