package parallel_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/bernamp/bernamp"
	"github.com/bernamp/bernamp/parallel"
)

// BenchmarkMapPost times a fixed grid of 24 points (d = 1..4, k = 1, c in
// {0.1, 0.3}, alpha = 5, eps in {0.5, 1, 2}) solved as the CLI's post
// --certify=false does, on 1, 2 and 4 workers with one solver goroutine
// per point; compare the ns/op of the three for the speedup.
func BenchmarkMapPost(b *testing.B) {
	var grid []bernamp.Params
	for d := 1; d <= 4; d++ {
		for _, c := range []float64{0.1, 0.3} {
			for _, eps := range []float64{0.5, 1, 2} {
				grid = append(grid, bernamp.Params{D: d, K: 1, C: c, Alpha: 5, Eps: eps})
			}
		}
	}
	set := &bernamp.Settings{Workers: 1, NoCertify: true}
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			b.ReportMetric(float64(len(grid)), "points")
			for b.Loop() {
				err := parallel.Map(context.Background(), len(grid), w,
					func(ctx context.Context, i int) (float64, error) {
						r, err := bernamp.Post(ctx, grid[i], set)
						return r.Post, err
					},
					func(int, float64) error { return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
