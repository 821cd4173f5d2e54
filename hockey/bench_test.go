package hockey_test

import (
	"context"
	"testing"

	"github.com/bernamp/bernamp/hockey"
)

var sink float64

func benchmarkDelta(b *testing.B, d, k int) {
	p := hockey.Params{D: d, K: k, C: 0.1, Eps: 1, Delta: 1e-3, EpsOut: 0.5}
	b.ReportAllocs()
	for b.Loop() {
		r, err := hockey.Delta(context.Background(), p)
		if err != nil {
			b.Fatal(err)
		}
		sink = r.Upper
	}
}

func BenchmarkDeltaD1K1(b *testing.B)    { benchmarkDelta(b, 1, 1) }
func BenchmarkDeltaD1K8(b *testing.B)    { benchmarkDelta(b, 1, 8) }
func BenchmarkDeltaD1K4096(b *testing.B) { benchmarkDelta(b, 1, 4096) }
func BenchmarkDeltaD2K2(b *testing.B)    { benchmarkDelta(b, 2, 2) }
func BenchmarkDeltaD3K1(b *testing.B)    { benchmarkDelta(b, 3, 1) }
func BenchmarkDeltaD4K4(b *testing.B)    { benchmarkDelta(b, 4, 4) }
func BenchmarkDeltaD10K1(b *testing.B)   { benchmarkDelta(b, 10, 1) }
